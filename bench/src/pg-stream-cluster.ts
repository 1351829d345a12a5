/**
 * The cluster mode of `pg-stream-bench.ts` (`--cluster`): `slow N 0` streams
 * over JSON-RPC/SSE at a fixed concurrency (50 and 1,000 streams at once by
 * default), each opened again as soon as it ends, against servers that run
 * as the reference agent does on PostgreSQL: a replica with its coordinator
 * (`ours-pg-cluster`), beside the same replica without batched commits
 * (`ours-pg-cluster-unbatched`: each leased commit its own statement, as
 * before they were batched) and the peer (`peer-pg`), in alternating rounds.
 *
 * Each run starts its server afresh, opens every stream, lets them run for
 * the warm-up, then measures a window: the events that arrive in it, the
 * server's and PostgreSQL's CPU over it, the p99 delay of the status
 * updates that arrive in it. At the window's end the streams are cut, the
 * server is killed and the tables emptied (a thousand streams of a slow
 * peer would take minutes to finish), so no run's leftovers load the next.
 */
import { setMaxListeners } from 'node:events';
import pg from 'pg';
import { median, requestBody } from './http-load.js';
import { roundTrips, withBenchDatabases } from './pg-peer.js';
import type { ServerProcess } from './server-process.js';
import { stream, type StreamSeen } from './sse-stream.js';
import { fmt, sampleOf, type Sample } from './pg-stream-sample.js';

/** What a cluster-mode run measures. */
export interface ClusterModeOptions {
  /** N of `slow N 0`. */
  readonly chunks: number;
  /** Streams open at once, one run per entry. */
  readonly concurrency: readonly number[];
  readonly servers: readonly string[];
  readonly rounds: number;
  /** Seconds of streaming before the window. */
  readonly warmup: number;
  /** Seconds the window lasts. */
  readonly duration: number;
}

const sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

/** Starts `kind`, keeps `concurrency` streams open, measures the window, then cuts the streams and kills the server. */
async function windowed(server: ServerProcess, concurrency: number, options: ClusterModeOptions, pgCpu: () => number): Promise<Sample> {
  const body = requestBody('SendStreamingMessage', `slow ${options.chunks} 0`);
  const expected = 2 * options.chunks + 2;
  const cut = new AbortController();
  // Every open stream listens on this one signal (up to 1,000 at once).
  setMaxListeners(concurrency + 10, cut.signal);
  const delays: number[] = [];
  let measuring = false;
  let events = 0;
  let failure: unknown;
  const onEvent = () => (measuring && events++, measuring);
  const loops = Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!cut.signal.aborted) {
        const seen: StreamSeen = { events: 0, completed: false, delays };
        try {
          await stream(server.url, body, seen, cut.signal, onEvent);
        } catch (error) {
          if (!cut.signal.aborted) failure ??= error;
          return;
        }
        if (!seen.completed || seen.events < expected) failure ??= new Error(`${server.kind}: a stream ended after ${seen.events} events (expected ${expected})`);
      }
    }),
  );
  await sleep(options.warmup);
  const trips0 = await roundTrips(server);
  const [cpu0, pg0, t0] = [server.cpuSeconds(), pgCpu(), performance.now()];
  measuring = true;
  await sleep(options.duration);
  measuring = false;
  const [cpu1, pg1, t1] = [server.cpuSeconds(), pgCpu(), performance.now()];
  const trips = (await roundTrips(server)) - trips0;
  cut.abort();
  if (server.pid !== undefined) process.kill(server.pid, 'SIGKILL');
  await server.stop();
  await loops;
  if (failure !== undefined) throw failure;
  return sampleOf({ events, seconds: (t1 - t0) / 1000, serverCpuSeconds: cpu1 - cpu0, pgCpuSeconds: pg1 - pg0, delays, trips });
}

/** Runs the cluster mode and prints each window, then the medians as a Markdown table with the peer's CPU per event over ours. */
export async function clusterMode(options: ClusterModeOptions): Promise<void> {
  await withBenchDatabases(async (start, cluster) => {
    const ours = new pg.Pool({ connectionString: cluster.database('bench_ours'), max: 1 });
    const pgCpu = () => cluster.cpuSeconds();
    console.log(
      `node ${process.version}, cluster mode: "slow ${options.chunks} 0" streams at ${options.concurrency.join(' and ')} at once, ${options.rounds} rounds × ${options.duration} s windows (after ${options.warmup} s of streaming each), PostgreSQL 15 on this machine`,
    );
    const table: string[] = [];
    const ratios: string[] = [];
    try {
      for (const concurrency of options.concurrency) {
        const samples = new Map<string, Sample[]>(options.servers.map((kind) => [kind, []]));
        for (let round = 1; round <= options.rounds; round++) {
          for (const kind of options.servers) {
            const sample = await windowed(await start(kind), concurrency, options, pgCpu);
            // The next run starts on empty tables: no leases left to take over, no rows to skip.
            if (kind !== 'peer-pg') await ours.query('TRUNCATE taskwire.tasks, taskwire.task_events');
            samples.get(kind)!.push(sample);
            console.log(
              `  ${concurrency} streams round ${round} ${kind.padEnd(25)} ${fmt(sample.rate).padStart(6)} events/s  node ${fmt(sample.serverCpu).padStart(4)} + PostgreSQL ${fmt(sample.pgCpu).padStart(4)} = ${fmt(sample.serverCpu + sample.pgCpu).padStart(5)} µs/event  p99 delay ${fmt(sample.p99)} ms  ${fmt(sample.trips, 3)} round trips/event`,
            );
          }
        }
        const med = (kind: string, pick: (s: Sample) => number) => median(samples.get(kind)!.map(pick));
        const total = (kind: string) => med(kind, (s) => s.serverCpu + s.pgCpu);
        for (const kind of options.servers) {
          table.push(
            `| ${fmt(concurrency)} | ${kind} | ${fmt(med(kind, (s) => s.rate))} | ${fmt(med(kind, (s) => s.serverCpu))} | ${fmt(med(kind, (s) => s.pgCpu))} | ${fmt(total(kind))} | ${fmt(med(kind, (s) => s.p99))} | ${fmt(med(kind, (s) => s.trips), 3)} |`,
          );
        }
        if (samples.has('peer-pg')) for (const kind of options.servers.filter((k) => k !== 'peer-pg')) ratios.push(`${fmt(concurrency)} streams: ${kind} ${fmt(total('peer-pg') / total(kind), 1)}x less CPU per event than the peer`);
      }
    } finally {
      await ours.end();
    }
    console.log('\n| streams | server | events/s | node CPU µs/event | PostgreSQL CPU µs/event | node + PostgreSQL µs/event | p99 delay ms | round trips/event |');
    console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const line of table) console.log(line);
    for (const line of ratios) console.log(line);
  });
}
