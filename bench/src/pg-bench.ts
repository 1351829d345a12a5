/**
 * The PostgreSQL benchmark: blocking SendMessage `echo hi` over JSON-RPC
 * (autocannon, 32 connections) on one local PostgreSQL of its own:
 *
 * - ours-pg: Taskwire, reference agent on @taskwire/postgres
 * - peer-pg: @a2a-js/sdk 1.3.0 with its DatabaseTaskStore (Kysely + pg) and an equivalent echo agent
 * - ours-memory: Taskwire on the memory store (no database), for scale
 *
 * Each server in its own process, each database server with a pool of 10.
 * Runs alternate server by server, round after round, after a warm-up each.
 * Per server: req/s, p99, server CPU per request, PostgreSQL CPU per request
 * (all the cluster's processes, /proc), database round trips per request.
 *
 * With `--pooler`: every database server goes through a PgBouncer of the
 * benchmark's own in transaction mode (10 server connections per
 * database), and ours-pg-cluster (a replica with its coordinator, LISTEN
 * on the direct URL) runs beside ours-pg and peer-pg; PgBouncer's CPU per
 * request is reported too.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/pg-bench.ts [--rounds 3] [--duration 5] [--warmup 2] [--connections 32] [--pooler]
 */
import { checkEcho, load, median, once, requestBody, benchOptions } from './http-load.js';
import { roundTrips, withBenchDatabases } from './pg-peer.js';
import type { ServerProcess } from './server-process.js';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP, flags } = benchOptions({}, ['pooler']);
const POOLER = flags.has('pooler');
/** Server connections per database through the pooler: as many as each server's pool. */
const POOLER_CONNECTIONS = 10;
const ECHO = requestBody('SendMessage', 'echo hi');
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** One measured run of one server. */
interface Sample {
  readonly rate: number;
  readonly p99: number;
  readonly serverCpu: number;
  readonly pgCpu: number;
  readonly poolerCpu: number;
  readonly trips: number;
}

async function main(): Promise<void> {
  await withBenchDatabases(async (start, cluster, poolerCpuSeconds) => {
    const kinds = POOLER ? ['ours-pg', 'ours-pg-cluster', 'peer-pg'] : ['ours-pg', 'peer-pg', 'ours-memory'];
    const servers: ServerProcess[] = [];
    for (const kind of kinds) servers.push(await start(kind));
    for (const server of servers) checkEcho(server.kind, await once(server, ECHO));
    const trips = roundTrips;

    console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each), PostgreSQL 15 on this machine${POOLER ? ', through PgBouncer in transaction mode' : ''}`);
    const samples = new Map<string, Sample[]>(servers.map((s) => [s.kind, []]));
    for (const server of servers) await load(server, ECHO, CONNECTIONS, WARMUP);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const server of servers) {
        const [trips0, pg0, pooler0] = [await trips(server), cluster.cpuSeconds(), poolerCpuSeconds()];
        const run = await load(server, ECHO, CONNECTIONS, DURATION);
        const [trips1, pg1, pooler1] = [await trips(server), cluster.cpuSeconds(), poolerCpuSeconds()];
        const total = run.requests.total;
        const perRequest = (seconds: number) => (seconds * 1e6) / total;
        const sample = { rate: run.requests.average, p99: run.latency.p99, serverCpu: run.cpuMicrosPerRequest, pgCpu: perRequest(pg1 - pg0), poolerCpu: perRequest(pooler1 - pooler0), trips: (trips1 - trips0) / total };
        samples.get(server.kind)!.push(sample);
        console.log(
          `  round ${round} ${server.kind.padEnd(11)} ${fmt(sample.rate).padStart(7)} req/s  p99 ${fmt(sample.p99).padStart(4)} ms  server CPU ${fmt(sample.serverCpu).padStart(5)} µs/req  PostgreSQL CPU ${fmt(sample.pgCpu).padStart(5)} µs/req${POOLER ? `  PgBouncer CPU ${fmt(sample.poolerCpu).padStart(4)} µs/req` : ''}  ${fmt(sample.trips, 2)} round trips/req`,
        );
      }
    }
    const med = (kind: string, pick: (s: Sample) => number) => median(samples.get(kind)!.map(pick));
    console.log(`\n| server | req/s | p99 ms | server CPU µs/req | PostgreSQL CPU µs/req |${POOLER ? ' PgBouncer CPU µs/req |' : ''} round trips/req |`);
    console.log(`| --- | ---: | ---: | ---: | ---: |${POOLER ? ' ---: |' : ''} ---: |`);
    for (const server of servers) {
      const k = server.kind;
      const pgCpu = k === 'ours-memory' ? '-' : fmt(med(k, (s) => s.pgCpu));
      const rts = k === 'ours-memory' ? '-' : fmt(med(k, (s) => s.trips), 2);
      const pooler = POOLER ? ` ${fmt(med(k, (s) => s.poolerCpu))} |` : '';
      console.log(`| ${k} | ${fmt(med(k, (s) => s.rate))} | ${fmt(med(k, (s) => s.p99))} | ${fmt(med(k, (s) => s.serverCpu))} | ${pgCpu} |${pooler} ${rts} |`);
    }
    const ratio = med('ours-pg', (s) => s.rate) / med('peer-pg', (s) => s.rate);
    const pgRatio = med('peer-pg', (s) => s.pgCpu) / med('ours-pg', (s) => s.pgCpu);
    console.log(`\nours vs @a2a-js/sdk on PostgreSQL: ${fmt(ratio, 1)}x req/s (target >= 3x, aim 5x), ${fmt(pgRatio, 1)}x less PostgreSQL CPU per request (target >= 1x)`);
  }, POOLER ? { pooler: { poolSize: POOLER_CONNECTIONS } } : {});
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
