/**
 * Recovery of a cluster from faults between its replicas and PostgreSQL:
 * 3 reference-agent replicas (as `npm start` runs them, from the
 * TypeScript sources), each behind a fault-injecting TCP proxy of its own,
 * on a PostgreSQL of the benchmark's own. For each fault, hitting replica 0
 * while it runs 3 tasks (`slow 50 100`, 5 s):
 * - reset: every connection of the replica reset (RST);
 * - half-open: its path to the database goes silent for 2 s (sockets stay
 *   open; only a ping or a timeout finds it);
 * - refused: every connection reset, and new ones refused for 2 s;
 * it reports how long until the replica serves a GetTask again (from the
 * start of the fault: detection plus reconnection) and how many of its
 * tasks did not complete (must be 0). Then the time from `kill -9` of the
 * replica running a task, and from SIGSTOP, to another replica seeing the
 * task failed (the lease expiring on the database's clock, plus a sweep).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/cluster-faults-bench.ts [--rounds 3] [--lease-ms 15000]
 */
import { parseArgs } from 'node:util';
import type { Task, Transport } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';
import { Cluster } from '@taskwire/cluster/support/cluster';
import { FaultProxy } from '@taskwire/cluster/support/fault-proxy';
import { send, until } from '@taskwire/cluster/support/fault-kit';
import { startBenchCluster } from './pg-cluster.js';
import { median } from './http-load.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'lease-ms': { type: 'string', default: '15000' } } });
const ROUNDS = Number(values.rounds);
const LEASE_MS = Number(values['lease-ms']);

/** Milliseconds until `transport` answers a GetTask of `id`. */
const serving = (transport: Transport, id: string) => until(async () => (await transport.unary('GetTask', { id, historyLength: 0 }).catch(() => undefined)) !== undefined, 'the replica to serve', 60_000, 10);

/** The final states of `ids`, read on `reader`. */
async function ended(reader: Transport, ids: readonly string[]): Promise<Task[]> {
  const tasks: Task[] = [];
  await until(
    async () => {
      tasks.length = 0;
      for (const id of ids) tasks.push(await reader.unary('GetTask', { id, historyLength: 0 }));
      return tasks.every((t) => isTerminal(t.status.state));
    },
    'the tasks to end',
    LEASE_MS * 4,
    50,
  );
  return tasks;
}

async function main(): Promise<void> {
  const pg = await startBenchCluster();
  const target = new URL(pg.url);
  const proxies = await Promise.all([0, 1, 2].map(() => FaultProxy.start({ host: target.hostname, port: Number(target.port) })));
  const cluster = await Cluster.start({ size: 3, databaseUrl: pg.url, databaseUrls: proxies.map((p) => p.url(pg.url)), schema: 'bench_faults', args: ['--lease-ttl-ms', String(LEASE_MS)] });
  const hit = () => cluster.transport('JSON-RPC', 0);
  const reader = () => cluster.transport('JSON-RPC', 1);
  const faults: Record<string, () => void> = {
    reset: () => void proxies[0]!.reset(),
    'half-open 2 s': () => void proxies[0]!.silence(2_000),
    'refused 2 s': () => {
      proxies[0]!.refuse(2_000);
      proxies[0]!.reset();
    },
  };
  try {
    process.stdout.write(`cluster faults: 3 replicas, lease ${LEASE_MS} ms, ${ROUNDS} round(s)\n`);
    for (const [name, fault] of Object.entries(faults)) {
      const recover: number[] = [];
      let failed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const planted = await Promise.all([0, 1, 2].map(() => send(hit(), 'slow 50 100')));
        fault();
        recover.push(await serving(hit(), planted[0]!.id));
        failed += (await ended(reader(), planted.map((t) => t.id))).filter((t) => t.status.state !== 'TASK_STATE_COMPLETED').length;
      }
      process.stdout.write(`${name}: serving again after ${recover.map((ms) => `${ms} ms`).join(', ')} (median ${median(recover)} ms); tasks not completed: ${failed} of ${ROUNDS * 3}\n`);
    }
    for (const signal of ['SIGKILL', 'SIGSTOP'] as const) {
      const settled: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const task = await send(hit(), 'slow 1000 100');
        await until(async () => (await reader().unary('GetTask', { id: task.id, historyLength: 0 })).status.state === 'TASK_STATE_WORKING', 'the task to run', 10_000);
        const at = Date.now();
        const child = cluster.replicas[0]!.process.child;
        child.kill(signal);
        const [end] = await ended(reader(), [task.id]);
        settled.push(Date.now() - at);
        if (end!.status.state !== 'TASK_STATE_FAILED') throw new Error(`the task ended ${end!.status.state}`);
        if (signal === 'SIGSTOP') child.kill('SIGKILL');
        cluster.replicas[0]!.up = false;
        await cluster.restart(0);
      }
      process.stdout.write(`${signal === 'SIGKILL' ? 'kill -9' : 'SIGSTOP'} to the task failed on another replica: ${settled.map((ms) => `${ms} ms`).join(', ')} (median ${median(settled)} ms)\n`);
    }
  } finally {
    await cluster.close();
    await Promise.all(proxies.map((p) => p.close()));
    await pg.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
