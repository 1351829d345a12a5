import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { JSON_RPC_PATH } from './http-servers.js';

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

/** A benchmarked server running in its own process. */
export interface ServerProcess {
  readonly kind: string;
  readonly url: string;
  /** CPU seconds (user + system) the server process has used so far; NaN where /proc is not available. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** CPU time of a process from /proc/<pid>/stat (utime + stime, in clock ticks of 1/100 s on Linux). */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const SERVER_SCRIPT = fileURLToPath(new URL('./http-servers.ts', import.meta.url));

/** Starts `http-servers.ts <kind>` (same node flags as this process, so tsx and the `source` condition apply) and waits for READY. */
export function startServer(kind: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, SERVER_SCRIPT, kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null) => reject(new Error(`the ${kind} server exited (${code}) before it was ready`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /READY (\d+)/.exec(out);
      if (!ready) return;
      child.off('exit', onExit);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        kind,
        url: `http://127.0.0.1:${ready[1]}${JSON_RPC_PATH}`,
        cpuSeconds: () => cpuSecondsOf(child.pid),
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
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
