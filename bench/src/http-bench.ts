/**
 * Issue 3's HTTP benchmark: JSON-RPC over HTTP/1.1 on this machine.
 *
 * - Blocking SendMessage `echo hi`: Taskwire (reference agent, memory store,
 *   serveA2A) vs @a2a-js/sdk 1.3.0 (express, an equivalent echo agent) vs a
 *   bare node:http floor (parses the same request, answers a reply of the
 *   same size). Requests/s and p99 latency, and our ratios to both. Also
 *   `adapter`: serveA2A exactly as ours, but its service answers SendMessage
 *   with a ready-made completed task of the same size (no task lifecycle):
 *   what the HTTP layer alone costs, and how much of the floor is left for
 *   any task service.
 * - SendStreamingMessage `slow 100 0`: Taskwire vs the peer (an equivalent
 *   100-chunk streamer); streams/s × events per stream = events/s.
 *
 * Every server runs in its own child process; autocannon (32 connections)
 * runs here. Runs alternate between servers, round after round, after a
 * warm-up of each. Before measuring, one answer of each server is checked.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/http-bench.ts [--rounds 3] [--duration 5] [--connections 32]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import type { Run, ServerProcess } from './http-load.js';
import { checkEcho, load, median, once, requestBody, sseData, startServer, benchOptions } from './http-load.js';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP } = benchOptions();

const ECHO = requestBody('SendMessage', 'echo hi');
const SLOW = requestBody('SendStreamingMessage', 'slow 100 0');

/** Checks a streamed answer: 202 events (task, 100 × status + chunk, completed). Returns the event count and bytes. */
function checkStream(kind: string, text: string): { events: number; bytes: number } {
  const events = sseData(text);
  const last = events.at(-1) as { result?: { statusUpdate?: { status?: { state?: string } } } } | undefined;
  const chunks = events.filter((e) => (e as { result?: { artifactUpdate?: unknown } }).result?.artifactUpdate).length;
  if (last?.result?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED' || chunks !== 100) {
    throw new Error(`${kind} did not stream 100 chunks to completion (${events.length} events, ${chunks} chunks)`);
  }
  return { events: events.length, bytes: Buffer.byteLength(text) };
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

interface Series {
  readonly server: ServerProcess;
  readonly runs: Run[];
}

async function alternate(servers: ServerProcess[], body: string, accept: string): Promise<Series[]> {
  const series = servers.map((server) => ({ server, runs: [] as Run[] }));
  for (const s of series) await load(s.server, body, CONNECTIONS, WARMUP, accept);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const s of series) {
      const result = await load(s.server, body, CONNECTIONS, DURATION, accept);
      s.runs.push(result);
      console.log(
        `  round ${round} ${s.server.kind.padEnd(7)} ${fmt(result.requests.average).padStart(9)} req/s  p99 ${fmt(result.latency.p99).padStart(5)} ms  server CPU ${fmt(result.cpuMicrosPerRequest).padStart(6)} µs/req`,
      );
    }
  }
  return series;
}

const rate = (s: Series) => median(s.runs.map((r) => r.requests.average));
const p99 = (s: Series) => median(s.runs.map((r) => r.latency.p99));
const cpu = (s: Series) => median(s.runs.map((r) => r.cpuMicrosPerRequest));

async function main(): Promise<void> {
  const started: ServerProcess[] = [];
  const start = async (kind: string, env?: Record<string, string>) => {
    const server = await startServer(kind, env);
    started.push(server);
    return server;
  };
  try {
    const ours = await start('ours');
    const adapter = await start('adapter');
    const peer = await start('peer');
    const oursReply = await once(ours, ECHO);
    const floor = await start('floor', { FLOOR_REPLY: oursReply });
    const sizes = {
      ours: checkEcho('ours', oursReply),
      adapter: checkEcho('adapter', await once(adapter, ECHO)),
      peer: checkEcho('peer', await once(peer, ECHO)),
      floor: checkEcho('floor', await once(floor, ECHO)),
    };

    console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each)`);
    console.log(
      `\nBlocking SendMessage "echo hi" (reply bytes: ours ${sizes.ours}, adapter ${sizes.adapter}, peer ${sizes.peer}, floor ${sizes.floor})`,
    );
    const [o, a, p, f] = await alternate([ours, adapter, peer, floor], ECHO, 'application/json');
    console.log('\n  server   req/s (median)   p99 ms (median)   server CPU µs/req (median)');
    for (const s of [o!, a!, p!, f!]) console.log(`  ${s.server.kind.padEnd(7)} ${fmt(rate(s)).padStart(14)} ${fmt(p99(s)).padStart(17)} ${fmt(cpu(s)).padStart(28)}`);
    console.log(
      `  ours vs @a2a-js/sdk: ${fmt(rate(o!) / rate(p!), 1)}x req/s, ${fmt(cpu(p!) / cpu(o!), 1)}x less CPU per request (target >= 10x); p99 ${fmt(p99(o!))} vs ${fmt(p99(p!))} ms`,
    );
    console.log(
      `  ours vs node:http floor: ${fmt((100 * rate(o!)) / rate(f!))}% of its req/s, ${fmt((100 * cpu(f!)) / cpu(o!))}% of its requests per CPU second (target >= 60%); p99 ${fmt(p99(o!))} vs ${fmt(p99(f!))} ms`,
    );
    console.log('  (adapter = ours with SendMessage answered by a ready-made completed task: the HTTP layer alone, no task lifecycle)');
    console.log(
      `  adapter alone vs floor: ${fmt((100 * rate(a!)) / rate(f!))}% of its req/s, ${fmt((100 * cpu(f!)) / cpu(a!))}% of its requests per CPU second; p99 ${fmt(p99(a!))} vs ${fmt(p99(f!))} ms`,
    );

    const oursStream = checkStream('ours', await once(ours, SLOW, 'text/event-stream'));
    const peerStream = checkStream('peer', await once(peer, SLOW, 'text/event-stream'));
    console.log(
      `\nSendStreamingMessage "slow 100 0" (events per stream: ours ${oursStream.events}, peer ${peerStream.events}; bytes: ours ${oursStream.bytes}, peer ${peerStream.bytes})`,
    );
    const [os, ps] = await alternate([ours, peer], SLOW, 'text/event-stream');
    const eventsPerSecond = (s: Series, perStream: number) => rate(s) * perStream;
    console.log('\n  server   streams/s   events/s   p99 ms per stream   server CPU µs/event');
    for (const [s, n] of [
      [os!, oursStream.events],
      [ps!, peerStream.events],
    ] as const) {
      console.log(
        `  ${s.server.kind.padEnd(7)} ${fmt(rate(s)).padStart(9)} ${fmt(eventsPerSecond(s, n)).padStart(10)} ${fmt(p99(s)).padStart(19)} ${fmt(cpu(s) / n, 1).padStart(21)}`,
      );
    }
    console.log(
      `  ours vs @a2a-js/sdk: ${fmt(eventsPerSecond(os!, oursStream.events) / eventsPerSecond(ps!, peerStream.events), 1)}x events/s, ${fmt(cpu(ps!) / peerStream.events / (cpu(os!) / oursStream.events), 1)}x less CPU per event`,
    );
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
