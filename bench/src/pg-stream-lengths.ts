/**
 * Cost per event by stream length, in cluster mode: `SendStreamingMessage`
 * `slow N 0` over JSON-RPC/SSE for each N of `--chunks` (default 50, 1,000
 * and 10,000) at one concurrency (`--streams`, default 8), against servers
 * of `pg-servers.ts` (default `ours-pg-cluster`: the reference agent on
 * PostgreSQL as a replica with its coordinator), in alternating rounds (each
 * round runs every N on every server once).
 *
 * A run measures whole streams, from their first event to their last: each
 * of the `--streams` loops runs streams one after the other until the run
 * holds at least `--events` events (at N = 10,000 and 8 streams, one stream
 * each), so each figure covers every length a task goes through, its
 * creation and its completion included. Per run: node CPU and PostgreSQL CPU
 * (every process of its cluster, /proc) per event, and the WAL PostgreSQL
 * wrote per event (`pg_current_wal_lsn()` before and after; one server runs
 * at a time, so the WAL is that run's). Each server is started once, warmed
 * up with `slow 50 0` streams, and reused for every run.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/pg-stream-lengths.ts
 *     [--chunks 50,1000,10000] [--streams 8] [--rounds 2] [--events 160000] [--servers ours-pg-cluster]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { median, requestBody } from './http-load.js';
import { withBenchDatabases } from './pg-peer.js';
import { fmt } from './pg-stream-sample.js';
import type { ServerProcess } from './server-process.js';
import { stream, type StreamSeen } from './sse-stream.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '50,1000,10000' },
    streams: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    events: { type: 'string', default: '160000' },
    servers: { type: 'string', default: 'ours-pg-cluster' },
  },
});
const CHUNKS = args.chunks.split(',').map(Number);
const [STREAMS, ROUNDS, EVENTS] = [args.streams, args.rounds, args.events].map(Number) as [number, number, number];

/** What one run measured, per event. */
interface LengthSample {
  readonly rate: number;
  /** µs of node CPU per event. */
  readonly node: number;
  /** µs of PostgreSQL CPU per event. */
  readonly pg: number;
  /** Bytes of WAL per event. */
  readonly wal: number;
}

/** `streams` loops each running `perLoop` whole streams of `slow n 0` one after the other; resolves the events received. */
async function streams(server: ServerProcess, n: number, perLoop: number): Promise<number> {
  const body = requestBody('SendStreamingMessage', `slow ${n} 0`);
  const expected = 2 * n + 2;
  let events = 0;
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      for (let i = 0; i < perLoop; i++) {
        const seen: StreamSeen = { events: 0, completed: false, delays: [] };
        await stream(server.url, body, seen);
        if (!seen.completed || seen.events < expected) throw new Error(`${server.kind}: a stream ended after ${seen.events} events (expected ${expected})`);
        events += seen.events;
      }
    }),
  );
  return events;
}

/** The WAL position now, in bytes. */
async function walBytes(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ at: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS at`);
  return Number(rows[0]!.at);
}

async function main(): Promise<void> {
  await withBenchDatabases(async (start, cluster) => {
    const db = new pg.Pool({ connectionString: cluster.url, max: 1 });
    const servers: ServerProcess[] = [];
    for (const kind of args.servers.split(',')) servers.push(await start(kind));
    for (const server of servers) await streams(server, 50, 20);
    console.log(
      `node ${process.version}, cluster mode: ${STREAMS} streams of "slow N 0" at once, N = ${CHUNKS.join(', ')}, whole streams, at least ${fmt(EVENTS)} events a run, ${ROUNDS} rounds, PostgreSQL 15 on this machine`,
    );
    const samples = new Map<string, LengthSample[]>();
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const n of CHUNKS) {
          for (const server of servers) {
            const perLoop = Math.max(1, Math.ceil(EVENTS / (STREAMS * (2 * n + 2))));
            const [cpu0, pg0, wal0, t0] = [server.cpuSeconds(), cluster.cpuSeconds(), await walBytes(db), performance.now()];
            const events = await streams(server, n, perLoop);
            const [cpu1, pg1, wal1, t1] = [server.cpuSeconds(), cluster.cpuSeconds(), await walBytes(db), performance.now()];
            const sample = { rate: events / ((t1 - t0) / 1000), node: ((cpu1 - cpu0) * 1e6) / events, pg: ((pg1 - pg0) * 1e6) / events, wal: (wal1 - wal0) / events };
            const key = `${n} ${server.kind}`;
            samples.set(key, [...(samples.get(key) ?? []), sample]);
            console.log(
              `  round ${round} N=${String(n).padEnd(6)} ${server.kind.padEnd(16)} ${fmt(events).padStart(8)} events ${fmt(sample.rate).padStart(6)} events/s  node ${fmt(sample.node).padStart(4)} + PostgreSQL ${fmt(sample.pg).padStart(4)} = ${fmt(sample.node + sample.pg).padStart(5)} µs/event  WAL ${fmt(sample.wal).padStart(6)} B/event`,
            );
          }
        }
      }
    } finally {
      await db.end();
    }
    console.log('\n| N | server | events/s | node CPU µs/event | PostgreSQL CPU µs/event | node + PostgreSQL µs/event | WAL bytes/event |');
    console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
    for (const n of CHUNKS) {
      for (const server of servers) {
        const runs = samples.get(`${n} ${server.kind}`)!;
        const med = (pick: (s: LengthSample) => number) => median(runs.map(pick));
        console.log(`| ${fmt(n)} | ${server.kind} | ${fmt(med((s) => s.rate))} | ${fmt(med((s) => s.node))} | ${fmt(med((s) => s.pg))} | ${fmt(med((s) => s.node + s.pg))} | ${fmt(med((s) => s.wal))} |`);
      }
    }
  });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
