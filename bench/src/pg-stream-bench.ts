/**
 * The PostgreSQL streaming benchmark: `SendStreamingMessage` `slow N 0` over
 * JSON-RPC/SSE (the reference agent's N rounds of a working status update and
 * an artifact chunk), 16 concurrent streams, each opened again as soon as it
 * ends, on one local PostgreSQL of its own:
 *
 * - ours-pg: Taskwire, reference agent on @taskwire/postgres
 * - peer-pg: @a2a-js/sdk 1.3.0 with its DatabaseTaskStore (Kysely + pg) and the equivalent agent
 * - ours-memory: Taskwire on the memory store (no database), for scale
 *
 * (the servers of `pg-bench.ts`, each in its own process). For each N (50
 * and 1,000 unless `--chunks` says otherwise) runs alternate server by
 * server, round after round, after a warm-up each. Per server: events/s,
 * server CPU per event, PostgreSQL CPU per event (every process of the
 * cluster, /proc), and the p99 delay from a status update's timestamp (set
 * just before it is committed) to its arrival at the client.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-stream-bench.ts [--chunks 50,1000] [--rounds 2] [--duration 6] [--warmup 2] [--connections 16]
 *
 * With `--cluster`, the servers run as cluster replicas (see
 * `pg-stream-cluster.ts`): `--connections` is then a list of concurrencies
 * (default 50,1000), `--chunks` one N (default 50).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-stream-bench.ts --cluster [--connections 50,1000] [--chunks 50] [--rounds 2] [--duration 6] [--warmup 2]
 */
import { parseArgs } from 'node:util';
import { median, requestBody } from './http-load.js';
import { roundTrips, withBenchDatabases } from './pg-peer.js';
import type { ServerProcess } from './server-process.js';
import { stream, type StreamSeen } from './sse-stream.js';
import { clusterMode } from './pg-stream-cluster.js';
import { fmt, sampleOf, type Sample } from './pg-stream-sample.js';

const { values: args } = parseArgs({
  options: {
    cluster: { type: 'boolean', default: false },
    chunks: { type: 'string', default: '50,1000' },
    rounds: { type: 'string', default: '2' },
    duration: { type: 'string', default: '6' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    servers: { type: 'string', default: 'ours-pg,peer-pg,ours-memory' },
  },
});
const [ROUNDS, DURATION, WARMUP, CONNECTIONS] = [args.rounds, args.duration, args.warmup, args.connections].map(Number) as [number, number, number, number];
const CHUNKS = args.chunks.split(',').map(Number);


/** `connections` loops opening streams of `slow n 0` for `seconds`; checks each stream completed with every event. */
async function run(server: ServerProcess, n: number, seconds: number, pgCpu: () => number): Promise<Sample> {
  const body = requestBody('SendStreamingMessage', `slow ${n} 0`);
  const expected = 2 * n + 2;
  const delays: number[] = [];
  let events = 0;
  const trips0 = await roundTrips(server);
  const [cpu0, pg0, t0] = [server.cpuSeconds(), pgCpu(), performance.now()];
  const until = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const seen: StreamSeen = { events: 0, completed: false, delays };
        await stream(server.url, body, seen);
        // The peer sends one more event (its first status update of the task).
        if (!seen.completed || seen.events < expected) throw new Error(`${server.kind}: a stream ended after ${seen.events} events (expected ${expected}), completed: ${seen.completed}`);
        events += seen.events;
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  const [cpu1, pg1] = [server.cpuSeconds(), pgCpu()];
  const trips = (await roundTrips(server)) - trips0;
  return sampleOf({ events, seconds: elapsed, serverCpuSeconds: cpu1 - cpu0, pgCpuSeconds: pg1 - pg0, delays, trips });
}

async function main(): Promise<void> {
  if (args.cluster) {
    const given = (name: string) => process.argv.includes(`--${name}`);
    return clusterMode({
      chunks: given('chunks') ? Number(args.chunks) : 50,
      concurrency: (given('connections') ? args.connections : '50,1000').split(',').map(Number),
      servers: (given('servers') ? args.servers : 'ours-pg-cluster,ours-pg-cluster-unbatched,peer-pg').split(','),
      rounds: ROUNDS,
      warmup: WARMUP,
      duration: DURATION,
    });
  }
  await withBenchDatabases(async (start, cluster) => {
    const servers: ServerProcess[] = [];
    for (const kind of args.servers.split(',')) servers.push(await start(kind));
    const pgCpu = () => cluster.cpuSeconds();
    console.log(`node ${process.version}, ${CONNECTIONS} concurrent streams of "slow N 0", ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each), PostgreSQL 15 on this machine`);
    const table: string[] = [];
    for (const n of CHUNKS) {
      const samples = new Map<string, Sample[]>(servers.map((s) => [s.kind, []]));
      for (const server of servers) await run(server, n, WARMUP, pgCpu);
      for (let round = 1; round <= ROUNDS; round++) {
        for (const server of servers) {
          const sample = await run(server, n, DURATION, pgCpu);
          samples.get(server.kind)!.push(sample);
          const pgText = server.kind === 'ours-memory' ? '    -' : fmt(sample.pgCpu).padStart(5);
          console.log(
            `  N=${n} round ${round} ${server.kind.padEnd(11)} ${fmt(sample.rate).padStart(7)} events/s  node CPU ${fmt(sample.serverCpu).padStart(5)} µs/event  PostgreSQL CPU ${pgText} µs/event  p99 delay ${fmt(sample.p99)} ms  ${fmt(sample.trips, 3)} round trips/event`,
          );
        }
      }
      const med = (kind: string, pick: (s: Sample) => number) => median(samples.get(kind)!.map(pick));
      for (const server of servers) {
        const k = server.kind;
        const memory = k === 'ours-memory';
        const [node, pgc] = [med(k, (s) => s.serverCpu), med(k, (s) => s.pgCpu)];
        const trips = memory ? '-' : fmt(med(k, (s) => s.trips), 3);
        table.push(`| ${n} | ${k} | ${fmt(med(k, (s) => s.rate))} | ${fmt(node)} | ${memory ? '-' : fmt(pgc)} | ${fmt(memory ? node : node + pgc)} | ${fmt(med(k, (s) => s.p99))} | ${trips} |`);
      }
      if (samples.has('ours-pg') && samples.has('peer-pg')) {
        console.log(`  N=${n}: ours-pg ${fmt(med('ours-pg', (s) => s.rate) / med('peer-pg', (s) => s.rate), 1)}x the peer's events/s`);
      }
    }
    console.log('\n| N | server | events/s | node CPU µs/event | PostgreSQL CPU µs/event | node + PostgreSQL µs/event | p99 delay ms | round trips/event |');
    console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const line of table) console.log(line);
  });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
