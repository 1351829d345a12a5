/**
 * The cluster benchmark: Taskwire replicas (cluster-servers.ts, each in its
 * own process) on one local PostgreSQL of its own.
 *
 * - blocking SendMessage `echo hi` over JSON-RPC with 1 and with 3 replicas
 *   (autocannon; the connections split over the replicas): req/s, and CPU
 *   per request of the replicas and of PostgreSQL (all its processes);
 * - cross-replica event delay (light load: one task emitting an update
 *   every 20 ms, followed on another replica, and on its own for
 *   comparison): from the agent's emit to the subscriber's read, p50/p99;
 * - cancel-to-abort delay: CancelTask on one replica until the agent's
 *   signal aborts on another, p50/p99;
 * - time from `kill -9` of the replica running a task to a subscriber on
 *   another replica receiving the task's end (failed: the agent's process
 *   stopped); and from SIGSTOP (a frozen process, whose database session
 *   stays: the lease must expire) to the same, once.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/cluster-bench.ts [--rounds 2] [--duration 5] [--connections 32] [--samples 20]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jsonRpcTransport } from '@taskwire/client';
import type { StreamEvent, Transport } from '@taskwire/core';
import { stateOf } from '@taskwire/core';
import { DEFAULT_LEASE_TTL_MS, migrate } from '@taskwire/postgres';
import { checkEcho, load, median, once, requestBody } from './http-load.js';
import { ABORTS_PATH } from './cluster-servers.js';
import { startBenchCluster } from './pg-cluster.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
    samples: { type: 'string', default: '20' },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SAMPLES = Number(values.samples);
const SCRIPT = fileURLToPath(new URL('./cluster-servers.ts', import.meta.url));
const SCHEMA = 'bench_cluster';
const ECHO = requestBody('SendMessage', 'echo hi');

const pct = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const ms = (n: number) => `${n.toFixed(1)} ms`;
const message = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] });

async function startTask(client: Transport, text: string): Promise<string> {
  const result = await client.unary('SendMessage', { message: message(text), configuration: { returnImmediately: true } });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task.id;
}

/** Resolves once `taskId` is working (its agent runs), read on `client`. */
async function untilWorking(client: Transport, id: string): Promise<void> {
  while ((await client.unary('GetTask', { id, historyLength: 0 })).status.state !== 'TASK_STATE_WORKING') await new Promise((r) => setTimeout(r, 2));
}

async function main(): Promise<void> {
  const pg = await startBenchCluster();
  const replicas: ServerProcess[] = [];
  const spawn = (kind: 'replica' | 'solo') =>
    startServerProcess(SCRIPT, kind, (port) => `http://127.0.0.1:${port}/a2a/jsonrpc`, { BENCH_DATABASE_URL: pg.url, BENCH_SCHEMA: SCHEMA });
  const start = async () => {
    const replica = await spawn('replica');
    replicas.push(replica);
    return replica;
  };
  const client = (replica: ServerProcess) => jsonRpcTransport({ url: replica.url });
  try {
    await migrate({ connectionString: pg.url, schema: SCHEMA });
    process.stdout.write(`cluster benchmark: ${ROUNDS} round(s) of ${DURATION} s, ${CONNECTIONS} connections, ${SAMPLES} samples per delay\n`);
    /** Echo load on `servers` (the connections split over them): req/s, and CPU per request of the servers and of PostgreSQL. */
    const measure = async (label: string, servers: ServerProcess[]) => {
      const size = servers.length;
      for (const r of servers) checkEcho(r.kind, await once(r, ECHO));
      await Promise.all(servers.map((r) => load(r, ECHO, Math.ceil(CONNECTIONS / size), 2)));
      const rates: number[] = [];
      const cpu: number[] = [];
      const pgCpu: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const pgBefore = pg.cpuSeconds();
        const cpuBefore = servers.map((r) => r.cpuSeconds());
        const runs = await Promise.all(servers.map((r) => load(r, ECHO, Math.ceil(CONNECTIONS / size), DURATION)));
        const total = runs.reduce((sum, run) => sum + run.requests.total, 0);
        rates.push(runs.reduce((sum, run) => sum + run.requests.average, 0));
        cpu.push((servers.reduce((sum, r, i) => sum + r.cpuSeconds() - cpuBefore[i]!, 0) * 1e6) / total);
        pgCpu.push(((pg.cpuSeconds() - pgBefore) * 1e6) / total);
      }
      process.stdout.write(
        `${label}: echo ${median(rates).toFixed(0)} req/s; CPU per request: server(s) ${median(cpu).toFixed(0)} µs, PostgreSQL ${median(pgCpu).toFixed(0)} µs\n`,
      );
    };
    const solo = await spawn('solo');
    await measure('1 process, no coordinator', [solo]);
    await solo.stop();
    await start();
    await measure('1 replica', replicas);
    await start();
    await start();
    await measure('3 replicas', replicas);
    const [a, b] = replicas.map(client) as [Transport, Transport, Transport];

    // Cross-replica event delay at light load: one task ticking every 20 ms, followed on its own replica and on another.
    const follow = async (on: Transport, id: string) => {
      const delays: number[] = [];
      for await (const event of on.stream('SubscribeToTask', { id }) as AsyncIterable<StreamEvent>) {
        const at = 'statusUpdate' in event.response ? (event.response.statusUpdate.metadata as { at?: number } | undefined)?.at : undefined;
        if (at !== undefined) delays.push(Date.now() - at);
      }
      return delays;
    };
    const ticking = await startTask(a, `tick ${Math.max(50, SAMPLES * 5)} 20`);
    const [same, cross] = await Promise.all([follow(a, ticking), follow(b, ticking)]);
    process.stdout.write(
      `event delay (emit to read), ${cross.length} events: other replica p50 ${ms(pct(cross, 50))} p99 ${ms(pct(cross, 99))}; same replica p50 ${ms(pct(same, 50))} p99 ${ms(pct(same, 99))}\n`,
    );

    // Cancel on replica b, abort on replica a.
    const abortsOf = async (replica: ServerProcess) => (await (await fetch(replica.url.replace('/a2a/jsonrpc', ABORTS_PATH))).json()) as Record<string, number>;
    const cancels: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const id = await startTask(a, 'hold');
      await untilWorking(a, id);
      const sent = Date.now();
      await b.unary('CancelTask', { id });
      let aborted: number | undefined;
      while ((aborted = (await abortsOf(replicas[0]!))[id]) === undefined) await new Promise((r) => setTimeout(r, 1));
      cancels.push(aborted - sent);
    }
    process.stdout.write(`cancel to abort, cancel on another replica: p50 ${ms(pct(cancels, 50))} p99 ${ms(pct(cancels, 99))} (${SAMPLES} cancels)\n`);

    // Replica 2 runs a task, replica 1 follows it; replica 2 is killed (or frozen).
    const settle = async (signal: NodeJS.Signals) => {
      const victim = replicas[2]!;
      const id = await startTask(client(victim), 'hold');
      await untilWorking(b, id);
      let following!: () => void;
      const first = new Promise<void>((resolve) => (following = resolve));
      const ended = (async () => {
        let last: string | undefined;
        for await (const event of b.stream('SubscribeToTask', { id })) {
          last = stateOf(event.response) ?? last;
          following();
        }
        return [Date.now(), last] as const;
      })();
      await first;
      const at = Date.now();
      process.kill(victim.pid!, signal);
      const [done, state] = await ended;
      if (state !== 'TASK_STATE_FAILED') throw new Error(`the task ended ${state}`);
      if (signal === 'SIGSTOP') {
        process.kill(victim.pid!, 'SIGCONT');
        await victim.stop();
      }
      replicas.pop();
      await start();
      return done - at;
    };
    const kills: number[] = [];
    for (let i = 0; i < 5; i++) kills.push(await settle('SIGKILL'));
    process.stdout.write(`kill -9 to the task settled (seen on another replica): ${kills.map((k) => ms(k)).join(', ')}\n`);
    const frozen = await settle('SIGSTOP');
    process.stdout.write(`SIGSTOP (session alive, lease ${DEFAULT_LEASE_TTL_MS} ms) to the task settled: ${ms(frozen)}\n`);
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await pg.stop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
