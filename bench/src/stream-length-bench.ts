/**
 * Does an event cost more when its stream is long? `SendStreamingMessage`
 * `slow N 0` over JSON-RPC/SSE (the reference agent's N rounds of a working
 * status update and an artifact chunk appended to one artifact) at N = 50,
 * 1,000 and 10,000, the same number of concurrent streams at every N, on
 * the memory store and the file store (each server in its own process,
 * `stream-length-servers.ts`). Every measurement receives about the same
 * number of events (each stream loop opens `events / (C × (2N + 2))`
 * streams one after the other, at least one); rounds alternate N and store
 * after a warm-up. Prints node CPU per event (from /proc, the server process only),
 * the median per store and N, and the ratios the target is about:
 * N = 10,000 against N = 1,000 and against N = 50.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/stream-length-bench.ts [--chunks 50,1000,10000] [--streams 8] [--events 160000] [--rounds 3] [--stores memory,file]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median, requestBody } from './http-load.js';
import { fmt } from './pg-stream-sample.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { stream, type StreamSeen } from './sse-stream.js';
import { JSON_RPC_PATH } from './stream-length-servers.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '50,1000,10000' },
    streams: { type: 'string', default: '8' },
    events: { type: 'string', default: '160000' },
    rounds: { type: 'string', default: '3' },
    stores: { type: 'string', default: 'memory,file' },
  },
});
const CHUNKS = args.chunks.split(',').map(Number);
const STREAMS = Number(args.streams);
const EVENTS = Number(args.events);
const ROUNDS = Number(args.rounds);
const SCRIPT = fileURLToPath(new URL('./stream-length-servers.ts', import.meta.url));

/** One measurement: node CPU µs per event and events per second. */
interface Sample {
  readonly cpu: number;
  readonly rate: number;
}

/** `STREAMS` loops, each opening `slow n 0` streams one after the other until about `events` events arrived in all; checks each stream whole. */
async function measure(server: ServerProcess, n: number, events: number): Promise<Sample> {
  const body = requestBody('SendStreamingMessage', `slow ${n} 0`);
  const expected = 2 * n + 2;
  const perLoop = Math.max(1, Math.round(events / (STREAMS * expected)));
  let received = 0;
  const [cpu0, t0] = [server.cpuSeconds(), performance.now()];
  await Promise.all(
    Array.from({ length: STREAMS }, async () => {
      for (let i = 0; i < perLoop; i++) {
        const seen: StreamSeen = { events: 0, completed: false, delays: [] };
        await stream(server.url, body, seen);
        if (!seen.completed || seen.events !== expected) throw new Error(`${server.kind}: a stream of slow ${n} ended after ${seen.events} events (expected ${expected}), completed: ${seen.completed}`);
        received += seen.events;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { cpu: ((server.cpuSeconds() - cpu0) * 1e6) / received, rate: received / seconds };
}

async function main(): Promise<void> {
  const servers: ServerProcess[] = [];
  try {
    for (const kind of args.stores.split(',')) servers.push(await startServerProcess(SCRIPT, kind, (port) => `http://127.0.0.1:${port}${JSON_RPC_PATH}`));
    console.log(`node ${process.version}, ${STREAMS} concurrent streams of "slow N 0", about ${fmt(EVENTS)} events per measurement, ${ROUNDS} rounds`);
    // Warm-up: the same code at every N, so the shorter streams warm it at a fraction of the cost.
    for (const server of servers) for (const n of CHUNKS.filter((c) => c <= 1_000)) await measure(server, n, EVENTS / 4);
    const samples = new Map<string, Sample[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const n of CHUNKS) {
        for (const server of servers) {
          const sample = await measure(server, n, EVENTS);
          const key = `${server.kind} ${n}`;
          samples.set(key, [...(samples.get(key) ?? []), sample]);
          console.log(`  round ${round} ${server.kind.padEnd(6)} N=${String(n).padEnd(6)} node CPU ${fmt(sample.cpu, 1).padStart(6)} µs/event  ${fmt(sample.rate).padStart(7)} events/s`);
        }
      }
    }
    console.log(`\n| store | ${CHUNKS.map((n) => `N = ${fmt(n)}`).join(' | ')} | N = ${fmt(CHUNKS.at(-1)!)} / N = ${fmt(CHUNKS.at(-2) ?? CHUNKS[0]!)} | N = ${fmt(CHUNKS.at(-1)!)} / N = ${fmt(CHUNKS[0]!)} |`);
    console.log(`| --- | ${CHUNKS.map(() => '---:').join(' | ')} | ---: | ---: |`);
    for (const server of servers) {
      const cpu = CHUNKS.map((n) => median(samples.get(`${server.kind} ${n}`)!.map((s) => s.cpu)));
      const last = cpu.at(-1)!;
      console.log(`| ${server.kind} | ${cpu.map((c) => `${fmt(c, 1)} µs`).join(' | ')} | ${fmt(last / (cpu.at(-2) ?? cpu[0]!), 2)} | ${fmt(last / cpu[0]!, 2)} |`);
    }
  } finally {
    for (const server of servers) await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
