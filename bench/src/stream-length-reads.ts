/**
 * What reading a long task costs, against what is sent: a task with N
 * chunks appended to one artifact (N = 1,000 and 10,000; the agent then
 * waits, so the task stays working), on the memory store and the file
 * store, served over JSON-RPC in this process:
 *
 * - GetTask: CPU time per call (this process: server and client) and
 *   bytes answered, so µs per KiB;
 * - SubscribeToTask resumed 20 events before the end (`afterSequence`):
 *   CPU time until the last of them arrived, and bytes sent;
 * - memory per open stream: 200 SubscribeToTask streams held open on the
 *   task (read up to date, `afterSequence` at the end, and fresh, whose
 *   first event is the task), heap growth per stream after a full GC.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/stream-length-reads.ts [--chunks 1000,10000] [--calls 30]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMemoryTaskStore, TaskService, type Agent, type StreamEvent, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { serveA2A } from '@taskwire/server-http';
import { median, REQUEST_HEADERS } from './http-load.js';
import { fmt } from './pg-stream-sample.js';
import { postForEvents } from './sse-post.js';

const { values: args } = parseArgs({ options: { chunks: { type: 'string', default: '1000,10000' }, calls: { type: 'string', default: '30' } } });
const CHUNKS = args.chunks.split(',').map(Number);
const CALLS = Number(args.calls);
const STREAMS = 200;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => (gc(), gc(), process.memoryUsage().heapUsed);

/** The agent: `n` chunks appended to artifact `output` (the reference agent's text), then it waits until released. */
function agentOf(ready: (taskId: string) => void, release: Promise<void>): Agent {
  return async (ctx) => {
    const n = Number((ctx.message.parts[0] as { text: string }).text);
    for (let i = 1; i <= n; i++) await ctx.artifact({ name: 'output', text: `chunk ${i} of ${n}\n` }, { append: i > 1 });
    ready(ctx.task.id);
    await release;
    await ctx.complete('done');
  };
}

/** POSTs a JSON-RPC body; resolves the answer's size in bytes. */
function post(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...REQUEST_HEADERS, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** CPU time of this process (ms: server and client, both here) per call of `fn`, median of `calls`, and what its last call resolved. */
async function timed<T>(calls: number, fn: () => Promise<T>): Promise<[number, T]> {
  const times: number[] = [];
  let last!: T;
  for (let i = 0; i < calls; i++) {
    const cpu = process.cpuUsage();
    last = await fn();
    const used = process.cpuUsage(cpu);
    times.push((used.user + used.system) / 1000);
  }
  return [median(times), last];
}

/** Resumes `taskId` after `after` over JSON-RPC SSE; resolves the bytes received once the `last - after` events up to `last` arrived. */
async function resumed(url: string, taskId: string, after: number, last: number): Promise<number> {
  const abort = new AbortController();
  let bytes = 0;
  let remaining = last - after;
  await postForEvents(
    url,
    rpc('SubscribeToTask', { id: taskId, afterSequence: after }),
    (data) => {
      bytes += data.length;
      if (--remaining === 0) abort.abort();
    },
    abort.signal,
  ).catch((error: unknown) => {
    if (!abort.signal.aborted) throw error;
  });
  if (remaining !== 0) throw new Error(`the resumed stream ended ${remaining} events short`);
  return bytes;
}

async function openStreams(service: TaskService, taskId: string, afterSequence: number | undefined): Promise<AsyncIterator<StreamEvent>[]> {
  const open: AsyncIterator<StreamEvent>[] = [];
  for (let i = 0; i < STREAMS; i++) {
    const stream = (await service.stream('SubscribeToTask', { id: taskId, ...(afterSequence !== undefined && { afterSequence }) }))[Symbol.asyncIterator]();
    if (afterSequence === undefined) await stream.next();
    open.push(stream);
  }
  return open;
}

/** One task of `n` chunks on a fresh `kind` store: its row of the table. */
async function measure(kind: string, n: number): Promise<string> {
  const dir = kind === 'file' ? mkdtempSync(join(tmpdir(), 'taskwire-reads-')) : undefined;
  const store: TaskStore = dir ? await FileTaskStore.open(dir, { fsync: false }) : createMemoryTaskStore();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let ready!: (taskId: string) => void;
  const streamed = new Promise<string>((resolve) => (ready = resolve));
  const service = new TaskService({ store, agent: agentOf(ready, released) });
  const server = await serveA2A({ service, port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${server.port}/a2a/jsonrpc`;
  try {
    await service.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: String(n) }] }, configuration: { returnImmediately: true } });
    const taskId = await streamed;
    const last = (await store.get(taskId))!.lastSequence;
    const [getMs, getBytes] = await timed(CALLS, () => post(url, rpc('GetTask', { id: taskId })));
    const [resumeMs, resumeBytes] = await timed(CALLS, () => resumed(url, taskId, last - 20, last));
    const before = heap();
    const upToDate = await openStreams(service, taskId, last);
    const perUpToDate = (heap() - before) / STREAMS;
    const fresh = await openStreams(service, taskId, undefined);
    const perFresh = (heap() - before) / STREAMS - perUpToDate;
    for (const stream of [...upToDate, ...fresh]) await stream.return?.();
    return `| ${kind} | ${fmt(n)} | ${fmt(getMs, 2)} ms, ${fmt(getBytes / 1024)} KiB: ${fmt((getMs * 1000) / (getBytes / 1024), 1)} µs/KiB | ${fmt(resumeMs, 2)} ms, ${fmt(resumeBytes / 1024, 1)} KiB | ${fmt(perUpToDate / 1024, 2)} KiB | ${fmt(perFresh / 1024, 2)} KiB |`;
  } finally {
    release();
    await server.close();
    await service.close();
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`node ${process.version}; ${CALLS} calls each (median); ${STREAMS} open streams for memory`);
  // Warm-up: every path on every size once (the first calls of a path compile it).
  for (const kind of ['memory', 'file']) for (const n of CHUNKS) await measure(kind, n);
  const rows: string[] = [];
  for (const kind of ['memory', 'file']) {
    for (const n of CHUNKS) {
      rows.push(await measure(kind, n));
      console.log(rows.at(-1));
    }
  }
  console.log('\n| store | N | GetTask: CPU, size, CPU per KiB | SubscribeToTask resumed 20 events before the end: CPU, size | heap per open stream, up to date | heap per open stream, fresh (first event: the task) |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
