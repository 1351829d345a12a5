/**
 * The cost of Taskwire's OpenTelemetry instrumentation when no SDK is
 * registered (the common case for a library): the HTTP echo benchmark's
 * `ours` server (blocking SendMessage `echo hi` over JSON-RPC), each in a
 * child process of its own: `off` with `telemetry: false` (every span, metric
 * and trace-header code path skipped), `on` as shipped (it looks for a
 * registered SDK on each call and finds none), and a second `off`: the gap
 * between the two identical servers is this run's noise floor. Rounds
 * rotate the three; server CPU per request (the steadier figure on a
 * shared machine) is compared by median. The target: `on` costs at most
 * 3% more. On a machine shared with other work the noise floor is often
 * wider than that, so the benchmark first measures the instrumentation's
 * own work per request (the calls it adds, in a tight loop, against the
 * same calls with telemetry off) and relates it to the measured CPU per
 * request.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/tracing-bench.ts [--rounds 6] [--duration 5] [--connections 32]
 *   (built packages, as the other benchmarks; add --conditions=@taskwire/source after tsx for the sources)
 */
import { callTraceOf, createMemoryTaskStore, HEADER_GETTER, startServerCall, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import type { Run, ServerProcess } from './http-load.js';
import { checkEcho, load, median, once, requestBody, startServer, benchOptions } from './http-load.js';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP } = benchOptions({ rounds: 6, warmup: 3 });
const ECHO = requestBody('SendMessage', 'echo hi');
const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Nanoseconds per call of `fn`, after a warm-up (a tight loop: stable even on a busy machine). */
function nsPerCall(fn: () => unknown, calls = 2_000_000): number {
  for (let i = 0; i < calls / 10; i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) fn();
  return Number(process.hrtime.bigint() - started) / calls;
}

/**
 * What the instrumentation itself does per blocking SendMessage when no SDK
 * is registered, measured call by call against the same calls with
 * telemetry off: the transport's `startServerCall`, the service's two
 * `callTraceOf` reads and the agent run's `RunObserver.start` (through the
 * service's private field: it has no public entry). Medians of 5 rounds.
 */
function instrumentationNs(): number {
  const service = (telemetry: false | undefined) => new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, telemetry });
  const [on, off] = [service(undefined), service(false)];
  const params = { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } };
  const context = { version: '1.0' };
  const headers = { 'content-type': 'application/json' };
  const input = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_SUBMITTED' } }, message: params.message, referencedTasks: [], principal: undefined, isContinuation: false };
  const perRequest = (s: TaskService) => () => {
    startServerCall(s.telemetry, 'jsonrpc', 'SendMessage', params, context, headers, HEADER_GETTER);
    callTraceOf(context);
    callTraceOf(context);
    (s as unknown as { observer: { start(run: unknown): unknown } }).observer.start(input);
  };
  const extra: number[] = [];
  for (let round = 0; round < 5; round++) extra.push(nsPerCall(perRequest(on)) - nsPerCall(perRequest(off)));
  return median(extra);
}

async function main(): Promise<void> {
  const extraNs = instrumentationNs();
  console.log(`The instrumentation's own work per request, no SDK registered: ${fmt(extraNs)} ns more than with telemetry off`);
  console.log('\nOver HTTP (JSON-RPC, serveA2A), one server per process:');
  // Two servers with telemetry off: their difference is the noise floor of this machine, in this run.
  const servers: [string, ServerProcess][] = [
    ['off A', await startServer('ours', { BENCH_TELEMETRY: 'off' })],
    ['on', await startServer('ours')],
    ['off B', await startServer('ours', { BENCH_TELEMETRY: 'off' })],
  ];
  try {
    for (const [name, server] of servers) checkEcho(name, await once(server, ECHO));
    console.log(`node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${DURATION} s (after a ${WARMUP} s warm-up each)`);
    const runs = new Map<string, Run[]>(servers.map(([name]) => [name, []]));
    for (const [, server] of servers) await load(server, ECHO, CONNECTIONS, WARMUP);
    for (let round = 1; round <= ROUNDS; round++) {
      // Rotate the order, so no server always runs first (or last) in a round.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
      for (const [name, server] of order) {
        const run = await load(server, ECHO, CONNECTIONS, DURATION);
        runs.get(name)!.push(run);
        console.log(`  round ${round} telemetry ${name.padEnd(5)} ${fmt(run.requests.average, 0).padStart(8)} req/s  server CPU ${fmt(run.cpuMicrosPerRequest).padStart(7)} µs/req`);
      }
    }
    const cpu = (name: string) => median(runs.get(name)!.map((r) => r.cpuMicrosPerRequest));
    const rate = (name: string) => median(runs.get(name)!.map((r) => r.requests.average));
    const off = (cpu('off A') + cpu('off B')) / 2;
    const overhead = (100 * (cpu('on') - off)) / off;
    const noise = (100 * Math.abs(cpu('off A') - cpu('off B'))) / off;
    for (const [name] of servers) console.log(`\n  telemetry ${name}: ${fmt(cpu(name))} µs/req, ${fmt(rate(name), 0)} req/s (medians)`);
    console.log(`\n  CPU per request, telemetry on (no SDK registered) vs off: ${overhead >= 0 ? '+' : ''}${fmt(overhead)}% (target: at most +3%)`);
    console.log(`  the two identical "off" servers differ by ${fmt(noise)}%: differences below that are noise`);
    console.log(`  the instrumentation's own work: ${fmt(extraNs)} ns of ${fmt(off)} µs per request = ${fmt((100 * extraNs) / 1000 / off, 2)}% (target: at most 3%)`);
  } finally {
    await Promise.all(servers.map(([, server]) => server.stop()));
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
