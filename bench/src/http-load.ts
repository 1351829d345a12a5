import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { JSON_RPC_PATH } from './http-servers.js';
import { type ServerProcess, startServerProcess } from './server-process.js';

export type { ServerProcess } from './server-process.js';

/** The part of autocannon's result the benchmark reads. */
export interface LoadResult {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number; readonly average: number };
  readonly throughput: { readonly average: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly duration: number;
}

interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly duration: number;
  readonly method: 'POST';
  readonly headers: Record<string, string>;
  readonly body: string;
}

// autocannon ships no types; this is the one call the benchmark makes.
const autocannon = createRequire(import.meta.url)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

const SERVER_SCRIPT = fileURLToPath(new URL('./http-servers.ts', import.meta.url));

/** Starts `http-servers.ts <kind>` in its own process; its url is the JSON-RPC endpoint. */
export function startServer(kind: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServerProcess(SERVER_SCRIPT, kind, (port) => `http://127.0.0.1:${port}${JSON_RPC_PATH}`, env);
}

/** The JSON-RPC request body of `method` with one user text message (v1.0 shapes). */
export function requestBody(method: 'SendMessage' | 'SendStreamingMessage', text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method,
    params: { message: { messageId: 'bench-message', role: 'ROLE_USER', parts: [{ text }] } },
  });
}

/** Headers of every benchmark request. */
export const REQUEST_HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

/** One load run: autocannon's figures and the server's CPU time per request. */
export interface Run extends LoadResult {
  /** Server CPU (user + system) per answered request, in microseconds: robust to other load on the machine. */
  readonly cpuMicrosPerRequest: number;
}

/** Runs autocannon against one server; fails loudly on errors or non-2xx answers. */
export async function load(server: ServerProcess, body: string, connections: number, duration: number, accept = 'application/json'): Promise<Run> {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({ url: server.url, connections, duration, method: 'POST', headers: { ...REQUEST_HEADERS, accept }, body });
  const cpu = server.cpuSeconds() - cpuBefore;
  if (result.errors > 0 || result.non2xx > 0 || result.timeouts > 0) {
    throw new Error(`${server.kind}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers under load`);
  }
  return { ...result, cpuMicrosPerRequest: (cpu * 1e6) / result.requests.total };
}

/** POSTs one request and returns the raw answer text. */
export async function once(server: ServerProcess, body: string, accept = 'application/json'): Promise<string> {
  const response = await fetch(server.url, { method: 'POST', headers: { ...REQUEST_HEADERS, accept }, body });
  if (!response.ok) throw new Error(`${server.kind} answered HTTP ${response.status}`);
  return response.text();
}

/** Checks a blocking answer to `echo hi`: a completed task whose status message says `hi`. Returns its size in bytes. */
export function checkEcho(kind: string, text: string): number {
  const answer = JSON.parse(text) as { result?: { task?: { status?: { state?: string; message?: { parts?: unknown[] } } } } };
  const status = answer.result?.task?.status;
  const said = JSON.stringify(status?.message?.parts ?? []);
  if (status?.state !== 'TASK_STATE_COMPLETED' || !said.includes('"hi"')) throw new Error(`${kind} did not echo: ${text.slice(0, 300)}`);
  return Buffer.byteLength(text);
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The parsed `data:` payloads of a complete SSE body, in order. */
export function sseData(text: string): unknown[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()))
    .filter((data) => data.length > 0)
    .map((data) => JSON.parse(data.join('\n')) as unknown);
}

/** The options of an HTTP load benchmark, as numbers. */
export interface BenchOptions {
  readonly rounds: number;
  readonly duration: number;
  readonly connections: number;
  readonly warmup: number;
  /** The on/off `flags` the benchmark takes (named without `--`) that were given. */
  readonly flags: ReadonlySet<string>;
}

/**
 * Reads `--rounds`, `--duration` (s), `--connections` and `--warmup` (s) from
 * the command line; unset ones take `defaults` (then 3 rounds of 5 s, 32
 * connections, 2 s of warm-up). `flags` names the benchmark's own on/off
 * options (`--<flag>`, no value). Unknown options are an error.
 */
export function benchOptions(defaults: Partial<Omit<BenchOptions, 'flags'>> = {}, flags: readonly string[] = []): BenchOptions {
  const d = { rounds: 3, duration: 5, connections: 32, warmup: 2, ...defaults };
  const option = (value: number) => ({ type: 'string' as const, default: String(value) });
  const { values } = parseArgs({
    options: {
      rounds: option(d.rounds),
      duration: option(d.duration),
      connections: option(d.connections),
      warmup: option(d.warmup),
      ...Object.fromEntries(flags.map((flag) => [flag, { type: 'boolean' as const }])),
    },
  });
  return {
    rounds: Number(values.rounds),
    duration: Number(values.duration),
    connections: Number(values.connections),
    warmup: Number(values.warmup),
    flags: new Set(flags.filter((flag) => (values as Record<string, unknown>)[flag] === true)),
  };
}
