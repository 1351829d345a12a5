/**
 * Issue 4's gRPC benchmark, on this machine.
 *
 * - Unary SendMessage `echo hi`: Taskwire (reference agent, memory store,
 *   serveGrpc) vs @a2a-js/sdk 1.3.0 (grpcService, an equivalent echo agent)
 *   vs a bare grpc-js floor (answers fixed bytes of the size of our reply).
 *   Calls/s and p99 latency, our ratios to both, and the floor's ratio to
 *   the peer (the most ours / peer can reach on the machine).
 * - SendStreamingMessage `slow 100 0`: Taskwire vs the peer (an equivalent
 *   100-round streamer); events/s.
 *
 * Every server runs in its own child process; the load generator runs here
 * with a raw grpc-js client (request bytes written by hand, replies left
 * undecoded) keeping N calls in flight on one channel: 32 unary calls, 4
 * streams. (Past a few concurrent streams the grpc-js *client* spends more
 * CPU per message the more streams it reads at once, measured here at
 * ~11 µs per message with 1 stream and ~210 µs with 32 against a bare
 * grpc-js streamer, so 32 streams would measure the load generator, not the
 * servers; --stream-concurrency changes it.) Runs alternate
 * between servers, round after round, after a warm-up of each. Before
 * measuring, each server's answers are checked with Taskwire's gRPC client.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/grpc-bench.ts [--rounds 3] [--duration 5] [--concurrency 32] [--stream-concurrency 4]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import { parseArgs } from 'node:util';
import { grpcTransport } from '@taskwire/server-grpc/client';
import type { GrpcLoadResult, GrpcServerProcess } from './grpc-load.js';
import { load, PATHS, rawClient, sendMessageRequest, startGrpcServer, streamOnce, unaryOnce } from './grpc-load.js';
import { median } from './http-load.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '32' },
    'stream-concurrency': { type: 'string', default: '4' },
    warmup: { type: 'string', default: '2' },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONCURRENCY = Number(values.concurrency);
const STREAM_CONCURRENCY = Number(values['stream-concurrency']);
const WARMUP = Number(values.warmup);

const ECHO = sendMessageRequest('echo hi');
const SLOW = sendMessageRequest('slow 100 0');

/** Checks, with Taskwire's own gRPC client, that a server echoes and streams like the reference agent. */
async function check(server: GrpcServerProcess, streams: boolean): Promise<void> {
  const client = grpcTransport({ url: server.url });
  try {
    const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
    const echo = await client.unary('SendMessage', message('echo hi'));
    const status = 'task' in echo ? echo.task.status : undefined;
    if (status?.state !== 'TASK_STATE_COMPLETED' || JSON.stringify(status.message?.parts) !== '[{"text":"hi"}]') {
      throw new Error(`${server.kind} did not echo: ${JSON.stringify(echo).slice(0, 300)}`);
    }
    if (!streams) return;
    let chunks = 0;
    let last: unknown;
    for await (const event of client.stream('SendStreamingMessage', message('slow 100 0'))) {
      if ('artifactUpdate' in event.response) chunks++;
      last = event.response;
    }
    const state = (last as { statusUpdate?: { status: { state: string } } }).statusUpdate?.status.state;
    if (chunks !== 100 || state !== 'TASK_STATE_COMPLETED') throw new Error(`${server.kind} did not stream 100 chunks to completion`);
  } finally {
    await client.close();
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** One measured run: the load result and the server process's CPU time per call (or per stream message). */
interface Run extends GrpcLoadResult {
  readonly cpuMicros: number;
}

interface Series {
  readonly server: GrpcServerProcess;
  readonly runs: Run[];
}

async function alternate(servers: GrpcServerProcess[], path: string, request: Buffer, streaming: boolean): Promise<Series[]> {
  const series = servers.map((server) => ({ server, runs: [] as Run[] }));
  const concurrency = streaming ? STREAM_CONCURRENCY : CONCURRENCY;
  for (const s of series) await load(s.server.url, path, request, concurrency, WARMUP, streaming);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of series) {
      const cpu0 = s.server.cpuSeconds();
      const result = await load(s.server.url, path, request, concurrency, DURATION, streaming);
      const run = { ...result, cpuMicros: ((s.server.cpuSeconds() - cpu0) * 1e6) / result.messages };
      s.runs.push(run);
      const unit = streaming ? 'events/s' : 'calls/s';
      console.log(
        `  round ${round} ${s.server.kind.padEnd(5)} ${fmt(result.messages / result.seconds).padStart(9)} ${unit}  p99 ${fmt(result.p99, 1)} ms  server CPU ${fmt(run.cpuMicros, 1)} µs per ${streaming ? 'event' : 'call'}`,
      );
    }
  }
  return series;
}

const rate = (s: Series) => median(s.runs.map((r) => r.messages / r.seconds));
const p99 = (s: Series) => median(s.runs.map((r) => r.p99));
const cpu = (s: Series) => median(s.runs.map((r) => r.cpuMicros));

async function main(): Promise<void> {
  const started: GrpcServerProcess[] = [];
  const start = async (kind: string, env?: Record<string, string>) => {
    const server = await startGrpcServer(kind, env);
    started.push(server);
    return server;
  };
  try {
    const ours = await start('ours');
    const peer = await start('peer');
    await check(ours, true);
    await check(peer, true);
    const raw = rawClient(ours.url);
    const oursReply = await unaryOnce(raw, PATHS.SendMessage, ECHO);
    const floor = await start('floor', { FLOOR_REPLY: oursReply.toString('base64') });
    const sizes = {
      ours: oursReply.length,
      peer: (await unaryOnce(rawClient(peer.url), PATHS.SendMessage, ECHO)).length,
      floor: (await unaryOnce(rawClient(floor.url), PATHS.SendMessage, ECHO)).length,
    };
    const perStream = {
      ours: (await streamOnce(raw, PATHS.SendStreamingMessage, SLOW)).length,
      peer: (await streamOnce(rawClient(peer.url), PATHS.SendStreamingMessage, SLOW)).length,
    };
    raw.close();

    console.log(
      `node ${process.version}, ${CONCURRENCY} unary calls / ${STREAM_CONCURRENCY} streams in flight on one channel, ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each)`,
    );
    console.log(`\nUnary SendMessage "echo hi" (reply bytes: ours ${sizes.ours}, peer ${sizes.peer}, floor ${sizes.floor})`);
    const [o, p, f] = await alternate([ours, peer, floor], PATHS.SendMessage, ECHO, false);
    console.log('\n  server   calls/s (median)   p99 ms (median)   server CPU µs/call (median)');
    for (const s of [o!, p!, f!]) console.log(`  ${s.server.kind.padEnd(7)} ${fmt(rate(s)).padStart(16)} ${fmt(p99(s), 1).padStart(17)} ${fmt(cpu(s), 1).padStart(29)}`);
    console.log(
      `  ours / @a2a-js/sdk: ${fmt(rate(o!) / rate(p!), 1)}x calls/s (target >= 3x); p99 ${fmt(p99(o!), 1)} vs ${fmt(p99(p!), 1)} ms; ${fmt(cpu(p!) / cpu(o!), 1)}x less server CPU per call`,
    );
    console.log(
      `  ours / bare grpc-js floor: ${fmt((100 * rate(o!)) / rate(f!))}% calls/s (target >= 60%); p99 ${fmt(p99(o!), 1)} vs ${fmt(p99(f!), 1)} ms; CPU per call ${fmt(cpu(o!), 1)} vs ${fmt(cpu(f!), 1)} µs (${fmt((100 * cpu(f!)) / cpu(o!))}%)`,
    );
    console.log(
      `  floor / @a2a-js/sdk: ${fmt(rate(f!) / rate(p!), 1)}x calls/s, the ceiling of ours / @a2a-js/sdk on this machine (no grpc-js server outruns the bare floor), so a 3x target is out of reach while this is under 3x`,
    );

    console.log(`\nSendStreamingMessage "slow 100 0" (messages per stream: ours ${perStream.ours}, peer ${perStream.peer})`);
    const [os, ps] = await alternate([ours, peer], PATHS.SendStreamingMessage, SLOW, true);
    console.log('\n  server   events/s (median)   streams/s   p99 ms per stream   server CPU µs/event');
    for (const [s, n] of [
      [os!, perStream.ours],
      [ps!, perStream.peer],
    ] as const) {
      console.log(`  ${s.server.kind.padEnd(7)} ${fmt(rate(s)).padStart(17)} ${fmt(rate(s) / n, 1).padStart(11)} ${fmt(p99(s), 1).padStart(19)} ${fmt(cpu(s), 1).padStart(21)}`);
    }
    console.log(`  ours / @a2a-js/sdk: ${fmt(rate(os!) / rate(ps!), 1)}x events/s; ${fmt(cpu(ps!) / cpu(os!), 1)}x less server CPU per event`);
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
