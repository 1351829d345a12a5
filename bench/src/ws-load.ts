/**
 * The WebSocket benchmark's load generator and server processes. The client
 * is raw `ws`: it writes tRPC request frames by hand and reads only the id
 * and the result type of each reply (never decodes its body), so that it
 * costs the same against our server and against the bare floor.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { type ServerProcess, startServerProcess } from './server-process.js';

/** A server child process. */
export type WsServerProcess = ServerProcess;

const SERVER_SCRIPT = fileURLToPath(new URL('./ws-servers.ts', import.meta.url));

/** Starts `ws-servers.ts <kind>` in its own process; resolves with its URL once it listens. */
export function startWsServer(kind: string, env: Record<string, string> = {}): Promise<WsServerProcess> {
  return startServerProcess(SERVER_SCRIPT, kind, (url) => url, env);
}

/** Runs `ws-servers.ts ceiling-<mode>`: the TaskService driven in-process, in its own process. */
export function inProcessCeiling(streaming: boolean, seconds: number, concurrency: number): Promise<WsLoadResult> {
  const mode = streaming ? 'ceiling-stream' : 'ceiling-unary';
  const child = spawn(process.execPath, [...process.execArgv, SERVER_SCRIPT, mode, String(seconds), String(concurrency)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      const result = /RESULT (.+)/.exec(out);
      if (!result) return reject(new Error(`the in-process run exited (${code}) without a result`));
      const { messages, seconds: elapsed } = JSON.parse(result[1]!) as { messages: number; seconds: number };
      resolve({ messages, seconds: elapsed, p99: Number.NaN, errors: 0 });
    });
  });
}

/** The tRPC request frame of a call (`mutation`) or stream (`subscription`) of SendMessage-shaped params. */
export function requestFrame(id: number, method: 'mutation' | 'subscription', path: string, text: string): string {
  return `{"id":${id},"method":"${method}","params":{"path":"${path}","input":{"message":{"messageId":"m-${id}","role":"ROLE_USER","parts":[{"text":"${text}"}]}}}}`;
}

const ID_PREFIX = '{"id":';

/** The id of a frame that starts `{"id":<n>` (as tRPC replies do), or -1. */
export function idOf(frame: Buffer): number {
  let id = 0;
  let i = ID_PREFIX.length;
  for (; i < frame.length; i++) {
    const c = frame[i]!;
    if (c < 48 || c > 57) break;
    id = id * 10 + (c - 48);
  }
  return i === ID_PREFIX.length ? -1 : id;
}

/** `data`, `started`, `stopped` or `error`: what a reply frame is, read from its first bytes. */
export function typeOf(frame: Buffer): 'data' | 'started' | 'stopped' | 'error' {
  const at = frame.indexOf('"type":"');
  if (at < 0 || frame.indexOf('"error":') >= 0 && frame.indexOf('"error":') < at) return 'error';
  const c = frame[at + 8];
  if (c === 100) return 'data';
  return frame[at + 11] === 114 ? 'started' : 'stopped';
}

/** A frame of exactly `bytes` bytes (when it can be that small) answering `id` with a result of `type`. */
export function floorFrame(id: number, type: string, bytes: number): string {
  const head = `{"id":${id},"result":{"type":"${type}","data":"`;
  const tail = '"}}';
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}

/** What one exchange looks like: the type and size of every reply frame. */
export async function captureExchange(url: string, frame: string, streaming: boolean): Promise<[string, number][]> {
  const socket = await openSocket(url);
  const frames: [string, number][] = [];
  await new Promise<void>((resolve) => {
    socket.on('message', (data: Buffer) => {
      const type = typeOf(data);
      frames.push([type, data.length]);
      if (!streaming || type === 'stopped' || type === 'error') resolve();
    });
    socket.send(frame);
  });
  socket.terminate();
  return frames;
}

function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Options of {@link load}. */
export interface LoadOptions {
  readonly concurrency: number;
  readonly connections: number;
  readonly seconds: number;
  readonly streaming: boolean;
  /** The request frame of call `id`. */
  readonly frame: (id: number) => string;
}

/** What a run measured: completed calls (or stream events), the elapsed seconds, p99 latency of a call (or a whole stream) in ms. */
export interface WsLoadResult {
  readonly messages: number;
  readonly seconds: number;
  readonly p99: number;
  readonly errors: number;
}

/**
 * Keeps `concurrency` calls in flight over `connections` sockets for
 * `seconds`, then lets the calls in flight finish. A unary call ends at its
 * reply; a stream at its `stopped` frame, and each of its `data` frames
 * counts as a message.
 */
export async function load(url: string, options: LoadOptions): Promise<WsLoadResult> {
  const sockets = await Promise.all(Array.from({ length: options.connections }, () => openSocket(url)));
  const pending = new Map<number, () => void>();
  let messages = 0;
  let errors = 0;
  for (const socket of sockets) {
    socket.on('message', (data: Buffer) => {
      const id = idOf(data);
      const done = pending.get(id);
      if (!done) return;
      const type = typeOf(data);
      if (type === 'error') errors++;
      if (!options.streaming) {
        if (type !== 'error') messages++;
      } else if (type === 'data') {
        messages++;
        return;
      } else if (type === 'started') {
        return;
      }
      pending.delete(id);
      done();
    });
  }
  let nextId = 1;
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const slot = async (socket: WebSocket) => {
    while (performance.now() < deadline) {
      const id = nextId++;
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        pending.set(id, resolve);
        socket.send(options.frame(id));
      });
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => slot(sockets[i % sockets.length]!)));
  const seconds = (performance.now() - started) / 1000;
  for (const socket of sockets) socket.terminate();
  latencies.sort((a, b) => a - b);
  return { messages, seconds, p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0, errors };
}
