/**
 * Reads of a long task on PostgreSQL in cluster mode: for each N of
 * `--chunks` (default 1,000 and 10,000), one `slow N 0` stream runs to its
 * end on `ours-pg-cluster` (the reference agent on PostgreSQL, a replica with
 * its coordinator), then `--calls` calls of each, after 5 of each unmeasured
 * (warm-up):
 *
 * - GetTask of that task (it holds N chunks: what it sends grows with N);
 * - SubscribeToTask resumed 10 events before the end of its log (it sends
 *   those 10 events, whatever N).
 *
 * The resumes run after all the GetTasks, not alternating with them: a
 * resume right after a GetTask of 322 KiB pays for collecting that call's
 * garbage (measured: 3.5 ms of node CPU per resume alternating, 2.0 ms
 * in a series of resumes, at N = 10,000).
 *
 * Per call: the bytes of the answer, the median wall time and the server's
 * mean CPU per call, and for GetTask its CPU per KiB sent (flat in N when a read
 * costs in proportion to what it sends).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx --conditions=@taskwire/source src/pg-long-reads.ts [--chunks 1000,10000] [--calls 20]
 */
import { parseArgs } from 'node:util';
import { median, REQUEST_HEADERS, requestBody } from './http-load.js';
import { withBenchDatabases } from './pg-peer.js';
import { fmt } from './pg-stream-sample.js';
import type { ServerProcess } from './server-process.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '1000,10000' },
    calls: { type: 'string', default: '20' },
  },
});

/** POSTs `body`, reads the whole answer; resolves its text. */
async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { ...REQUEST_HEADERS, ...headers }, body });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

/** Runs `slow n 0` to its end; resolves the task's id and the last sequence of its log (the SSE ids). */
async function streamed(server: ServerProcess, n: number): Promise<{ id: string; last: number }> {
  const text = await post(server.url, requestBody('SendStreamingMessage', `slow ${n} 0`), { accept: 'text/event-stream' });
  const id = /"task":\{"id":"([^"]+)"/.exec(text)?.[1];
  const ids = [...text.matchAll(/^id: ?(\d+)$/gm)].map((m) => Number(m[1]));
  if (id === undefined || ids.length === 0) throw new Error(`slow ${n} 0: no task id or no event ids in the stream`);
  return { id, last: Math.max(...ids) };
}

/** One call's figures. */
interface Call {
  readonly bytes: number;
  readonly ms: number;
  readonly cpuMs: number;
}

async function timed(server: ServerProcess, call: () => Promise<string>): Promise<Call> {
  const [cpu0, t0] = [server.cpuSeconds(), performance.now()];
  const text = await call();
  return { bytes: Buffer.byteLength(text), ms: performance.now() - t0, cpuMs: (server.cpuSeconds() - cpu0) * 1000 };
}

async function main(): Promise<void> {
  await withBenchDatabases(async (start) => {
    const server = await start('ours-pg-cluster');
    const calls = Number(args.calls);
    console.log(`node ${process.version}, cluster mode on PostgreSQL 15 (this machine): reads of one ended "slow N 0" task, ${calls} calls each (GetTasks, then resumes)`);
    const table: string[] = [];
    for (const n of args.chunks.split(',').map(Number)) {
      const { id, last } = await streamed(server, n);
      const get = () => post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }));
      const resume = () =>
        post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id } }), { accept: 'text/event-stream', 'last-event-id': String(last - 10) });
      const series = async (call: () => Promise<string>): Promise<Call[]> => {
        for (let i = 0; i < 5; i++) await call();
        const runs: Call[] = [];
        for (let i = 0; i < calls; i++) runs.push(await timed(server, call));
        return runs;
      };
      const gets = await series(get);
      const resumes = await series(resume);
      const med = (runs: Call[], pick: (c: Call) => number) => median(runs.map(pick));
      // /proc counts CPU in 10 ms ticks: the mean over the calls, not a median of single calls.
      const cpu = (runs: Call[]) => runs.reduce((sum, c) => sum + c.cpuMs, 0) / runs.length;
      const kib = med(gets, (c) => c.bytes) / 1024;
      table.push(
        `| ${fmt(n)} | ${fmt(kib)} | ${fmt(med(gets, (c) => c.ms), 1)} | ${fmt(cpu(gets), 1)} | ${fmt((1000 * cpu(gets)) / kib)} | ${fmt(med(resumes, (c) => c.bytes) / 1024, 1)} | ${fmt(med(resumes, (c) => c.ms), 1)} | ${fmt(cpu(resumes), 1)} |`,
      );
    }
    console.log('\n| N | GetTask KiB | GetTask ms | GetTask node CPU ms | node CPU µs per KiB | resume (10 events) KiB | resume ms | resume node CPU ms |');
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const line of table) console.log(line);
  });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
