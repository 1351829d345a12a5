/**
 * The LLM-like streaming benchmark: many concurrent answers, each a
 * simulated model's text deltas (500 at 50 a second by default) relayed by
 * an agent as chunks of one artifact, on two Taskwire replicas
 * (llm-replica.ts, each in its own process, a coordinator beside the
 * store) on one local PostgreSQL of its own. Each answer is a
 * `SendStreamingMessage` over JSON-RPC/SSE, to the replicas in turn, the
 * answers starting spread over the first second.
 *
 * Modes, in alternating rounds after a warm-up each: `off` (each delta
 * committed before the next: the AI SDK adapter before coalescing), `50`
 * (coalesced, at most one commit every 50 ms per answer: the adapter's
 * default), `inflight` (coalesced while a commit is in flight only),
 * `grouped` (not coalesced, each delta its own chunk emitted without
 * awaiting: the run's deltas made while a commit is in flight go in its
 * next commit together, so its chunks are not its commits). Per
 * round: chunks (commits of the artifact) per answer and per 100 ms of an
 * answer, node CPU of both replicas and PostgreSQL CPU (all its processes,
 * /proc) per delta, and the p50/p99 delay from a delta's making (its
 * timestamp, in its text) to its arrival at the client; every answer is
 * checked to arrive whole, in order, and complete.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/pg-llm-bench.ts [--answers 200] [--deltas 500] [--every 20] [--modes off,50] [--rounds 2] [--warmup 20]
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrate } from '@taskwire/postgres';
import pg from 'pg';
import { median, requestBody } from './http-load.js';
import { startBenchCluster, type BenchCluster } from './pg-cluster.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { postForEvents } from './sse-post.js';

const { values: args } = parseArgs({
  options: {
    answers: { type: 'string', default: '200' },
    deltas: { type: 'string', default: '500' },
    every: { type: 'string', default: '20' },
    modes: { type: 'string', default: 'off,50' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '20' },
    replicas: { type: 'string', default: '2' },
  },
});
const [ANSWERS, DELTAS, EVERY, ROUNDS, WARMUP, REPLICAS] = [args.answers, args.deltas, args.every, args.rounds, args.warmup, args.replicas].map(Number) as [number, number, number, number, number, number];
const MODES = args.modes.split(',');
const SCRIPT = fileURLToPath(new URL('./llm-replica.ts', import.meta.url));
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

/** What one answer's stream delivered. */
interface Answer {
  chunks: number;
  deltas: number;
  first: number;
  last: number;
  completed: boolean;
}

/** Reads one answer's stream to its end; each delta's delay (arrival minus the time in its text) goes into `delays`. */
async function answer(url: string, body: string, delays: number[]): Promise<Answer> {
  const seen: Answer = { chunks: 0, deltas: 0, first: Number.NaN, last: Number.NaN, completed: false };
  await postForEvents(url, body, (data, now) => {
    const response = JSON.parse(data).result;
    if (response.statusUpdate?.status.state === 'TASK_STATE_COMPLETED') seen.completed = true;
    if (!response.artifactUpdate) return;
    seen.chunks++;
    for (const part of response.artifactUpdate.artifact.parts) {
      for (const stamp of (part.text as string).split(' ')) {
        if (stamp === '') continue;
        const made = Number(stamp);
        if (made < seen.last) throw new Error(`a delta arrived out of order (${made} after ${seen.last})`);
        if (seen.deltas++ === 0) seen.first = made;
        seen.last = made;
        delays.push(now - made);
      }
    }
  });
  return seen;
}

/** One round's figures. */
interface Sample {
  readonly chunks: number;
  readonly per100ms: number;
  readonly nodeCpu: number;
  readonly pgCpu: number;
  readonly p50: number;
  readonly p99: number;
  readonly seconds: number;
  readonly load: string;
}

/** `answers` concurrent answers of `deltas` deltas in `mode`, spread over the replicas; checks that each arrived whole. */
async function round(replicas: readonly ServerProcess[], cluster: BenchCluster, mode: string, answers: number, deltas: number): Promise<Sample> {
  const body = requestBody('SendStreamingMessage', `llm ${deltas} ${EVERY} ${mode}`);
  const delays: number[] = [];
  const cpu = () => replicas.reduce((sum, r) => sum + r.cpuSeconds(), 0);
  const [cpu0, pg0, t0] = [cpu(), cluster.cpuSeconds(), performance.now()];
  const load0 = loadavg()[0]!;
  const seen = await Promise.all(
    Array.from({ length: answers }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, (i * 1000) / answers));
      const got = await answer(replicas[i % replicas.length]!.url, body, delays);
      if (!got.completed || got.deltas !== deltas) throw new Error(`${mode}: an answer ended with ${got.deltas} of ${deltas} deltas, completed: ${got.completed}`);
      return got;
    }),
  );
  const [cpu1, pg1, t1] = [cpu(), cluster.cpuSeconds(), performance.now()];
  const total = answers * deltas;
  delays.sort((a, b) => a - b);
  return {
    chunks: median(seen.map((s) => s.chunks)),
    per100ms: median(seen.map((s) => s.chunks / ((s.last - s.first) / 100))),
    nodeCpu: ((cpu1 - cpu0) * 1e6) / total,
    pgCpu: ((pg1 - pg0) * 1e6) / total,
    p50: pct(delays, 0.5),
    p99: pct(delays, 0.99),
    seconds: (t1 - t0) / 1000,
    load: `${fmt(load0, 1)} -> ${fmt(loadavg()[0]!, 1)}`,
  };
}

async function main(): Promise<void> {
  const cluster = await startBenchCluster();
  const replicas: ServerProcess[] = [];
  try {
    const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await admin.query('CREATE DATABASE bench_llm');
    await admin.end();
    const url = cluster.database('bench_llm');
    await migrate({ connectionString: url });
    for (let i = 0; i < REPLICAS; i++) {
      replicas.push(await startServerProcess(SCRIPT, `replica-${i + 1}`, (port) => `http://127.0.0.1:${port}/a2a/jsonrpc`, { BENCH_DATABASE_URL: url }));
    }
    console.log(`node ${process.version}, ${REPLICAS} replicas (coordinator on), ${ANSWERS} concurrent answers of ${DELTAS} deltas, one every ${EVERY} ms; ${ROUNDS} rounds per mode, alternating; PostgreSQL 15 on this machine`);
    for (const mode of MODES) await round(replicas, cluster, mode, WARMUP, 50);
    const samples = new Map<string, Sample[]>(MODES.map((m) => [m, []]));
    for (let r = 1; r <= ROUNDS; r++) {
      for (const mode of MODES) {
        const s = await round(replicas, cluster, mode, ANSWERS, DELTAS);
        samples.get(mode)!.push(s);
        console.log(
          `  round ${r} ${mode.padEnd(8)} ${fmt(s.chunks)} chunks/answer (${fmt(s.per100ms, 2)} per 100 ms)  node CPU ${fmt(s.nodeCpu)} µs/delta  PostgreSQL CPU ${fmt(s.pgCpu)} µs/delta  delay p50 ${fmt(s.p50, 1)} ms p99 ${fmt(s.p99, 1)} ms  ${fmt(s.seconds, 1)} s  load ${s.load}`,
        );
      }
    }
    console.log('\n| mode | chunks (commits) per answer | per 100 ms of an answer | node CPU µs/delta | PostgreSQL CPU µs/delta | node + PostgreSQL µs/delta | delay p50 ms | delay p99 ms |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const [mode, list] of samples) {
      const med = (pick: (s: Sample) => number) => median(list.map(pick));
      const [node, pgc] = [med((s) => s.nodeCpu), med((s) => s.pgCpu)];
      console.log(`| ${mode} | ${fmt(med((s) => s.chunks))} | ${fmt(med((s) => s.per100ms), 2)} | ${fmt(node)} | ${fmt(pgc)} | ${fmt(node + pgc)} | ${fmt(med((s) => s.p50), 1)} | ${fmt(med((s) => s.p99), 1)} |`);
    }
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
    await cluster.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
