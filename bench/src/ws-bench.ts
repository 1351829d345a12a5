/**
 * Issue 5's WebSocket benchmark, on this machine.
 *
 * - Unary SendMessage `echo hi`: Taskwire over WebSocket (reference agent,
 *   memory store, serveWebSocket) vs a bare `ws` floor that answers every
 *   call with a frame of the same size as our reply. Calls/s, p99 latency,
 *   and our share of the floor.
 * - SendStreamingMessage `slow 100 0`: ours vs the floor answering every
 *   stream call with frames of the same types and sizes as ours. Events/s.
 *
 * - For scale, the service on its own: the same TaskService driven
 *   in-process with as many calls in flight and a server's JSON work
 *   (requests parsed, replies and events serialized), no network.
 *
 * Each server runs in its own child process; the load generator runs here
 * with raw `ws` clients keeping N calls in flight over a few connections
 * (request frames written by hand, replies read only for their id and
 * type). Runs alternate between the contenders, round after round, after a
 * warm-up of each. Before measuring, our server's answers are checked with
 * Taskwire's WebSocket client (`@taskwire/client/ws`).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/ws-bench.ts [--rounds 3] [--duration 5] [--concurrency 32] [--connections 2]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import { parseArgs } from 'node:util';
import { wsTransport } from '@taskwire/client/ws';
import { median } from './http-load.js';
import type { WsLoadResult, WsServerProcess } from './ws-load.js';
import { captureExchange, inProcessCeiling, load, requestFrame, startWsServer } from './ws-load.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    connections: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONCURRENCY = Number(values.concurrency);
const CONNECTIONS = Number(values.connections);
const WARMUP = Number(values.warmup);

const ECHO = (id: number) => requestFrame(id, 'mutation', 'SendMessage', 'echo hi');
const SLOW = (id: number) => requestFrame(id, 'subscription', 'SendStreamingMessage', 'slow 100 0');

/** Checks, with Taskwire's WebSocket client, that our server echoes and streams like the reference agent. */
async function check(url: string): Promise<void> {
  const client = wsTransport({ url });
  try {
    const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
    const echo = await client.unary('SendMessage', message('echo hi'));
    const status = 'task' in echo ? echo.task.status : undefined;
    if (status?.state !== 'TASK_STATE_COMPLETED' || JSON.stringify(status.message?.parts) !== '[{"text":"hi"}]') {
      throw new Error(`our server did not echo: ${JSON.stringify(echo).slice(0, 300)}`);
    }
    let chunks = 0;
    let last: unknown;
    for await (const event of client.stream('SendStreamingMessage', message('slow 100 0'))) {
      if ('artifactUpdate' in event.response) chunks++;
      last = event.response;
    }
    const state = (last as { statusUpdate?: { status: { state: string } } }).statusUpdate?.status.state;
    if (chunks !== 100 || state !== 'TASK_STATE_COMPLETED') throw new Error('our server did not stream 100 chunks to completion');
  } finally {
    await client.close();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Something measured: a server under load, or the in-process ceiling. */
interface Contender {
  readonly name: string;
  run(seconds: number): Promise<WsLoadResult>;
}

interface Series {
  readonly name: string;
  readonly runs: WsLoadResult[];
}

function overWebSocket(server: WsServerProcess, frame: (id: number) => string, streaming: boolean): Contender {
  return { name: server.kind, run: (seconds) => load(server.url, { concurrency: CONCURRENCY, connections: CONNECTIONS, streaming, frame, seconds }) };
}

function inProcess(streaming: boolean): Contender {
  return { name: 'service', run: (seconds) => inProcessCeiling(streaming, seconds, CONCURRENCY) };
}

async function alternate(contenders: Contender[], unit: string): Promise<Series[]> {
  const series = contenders.map((c) => ({ name: c.name, runs: [] as WsLoadResult[] }));
  for (const c of contenders) await c.run(WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, c] of contenders.entries()) {
      const result = await c.run(DURATION);
      if (result.errors > 0) throw new Error(`${c.name}: ${result.errors} calls failed`);
      series[i]!.runs.push(result);
      const latency = Number.isNaN(result.p99) ? '' : `  p99 ${fmt(result.p99, 1)} ms`;
      console.log(`  round ${round} ${c.name.padEnd(7)} ${fmt(result.messages / result.seconds).padStart(9)} ${unit}${latency}`);
    }
  }
  return series;
}

const rate = (s: Series) => median(s.runs.map((r) => r.messages / r.seconds));
const p99 = (s: Series) => median(s.runs.map((r) => r.p99));
const p99Text = (s: Series) => (Number.isNaN(p99(s)) ? '-' : fmt(p99(s), 1));

async function main(): Promise<void> {
  const started: WsServerProcess[] = [];
  try {
    const ours = await startWsServer('ours');
    started.push(ours);
    await check(ours.url);
    const reply = await captureExchange(ours.url, ECHO(1), false);
    const stream = await captureExchange(ours.url, SLOW(1), true);
    const floor = await startWsServer('floor', { FLOOR_REPLY_BYTES: String(reply[0]![1]), FLOOR_STREAM: JSON.stringify(stream) });
    started.push(floor);
    const events = stream.filter(([type]) => type === 'data').length;
    const streamBytes = stream.reduce((sum, [, bytes]) => sum + bytes, 0);

    console.log(`node ${process.version}, ${CONCURRENCY} calls in flight over ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each)`);
    console.log(`\nUnary SendMessage "echo hi" (reply frame: ${reply[0]![1]} bytes, the same from both)`);
    const [o, f, c] = await alternate([overWebSocket(ours, ECHO, false), overWebSocket(floor, ECHO, false), inProcess(false)], 'calls/s');
    console.log('\n  contender  calls/s (median)   p99 ms (median)');
    for (const s of [o!, f!, c!]) console.log(`  ${s.name.padEnd(9)} ${fmt(rate(s)).padStart(16)} ${p99Text(s).padStart(17)}`);
    console.log(`  ours / bare ws floor: ${fmt((100 * rate(o!)) / rate(f!))}% calls/s (target >= 60%); p99 ${fmt(p99(o!), 1)} vs ${fmt(p99(f!), 1)} ms`);
    console.log(`  ours / in-process service: ${fmt((100 * rate(o!)) / rate(c!))}% calls/s (the service alone, in one process, with no network)`);

    console.log(`\nSendStreamingMessage "slow 100 0" (${events} events in ${stream.length} frames, ${fmt(streamBytes)} bytes per stream, the same from both)`);
    const [os, fs, cs] = await alternate([overWebSocket(ours, SLOW, true), overWebSocket(floor, SLOW, true), inProcess(true)], 'events/s');
    console.log('\n  contender  events/s (median)   streams/s   p99 ms per stream');
    for (const s of [os!, fs!, cs!]) console.log(`  ${s.name.padEnd(9)} ${fmt(rate(s)).padStart(17)} ${fmt(rate(s) / events, 1).padStart(11)} ${p99Text(s).padStart(19)}`);
    console.log(`  ours / bare ws floor: ${fmt((100 * rate(os!)) / rate(fs!))}% events/s (target >= 60%)`);
    console.log(`  ours / in-process service: ${fmt((100 * rate(os!)) / rate(cs!))}% events/s`);
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
