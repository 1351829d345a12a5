/**
 * What `fromA2AExecutor` costs: CPU per blocking SendMessage of the same
 * agent written as an @a2a-js/sdk AgentExecutor (through the adapter) and
 * as a native Taskwire agent (a2a-js-adapter-agents.ts). Two agents:
 * `greet` (a Task event, then completed with a message; natively
 * `complete(message)`) and `work` (Task, working, an artifact, completed
 * with a message). Measured twice: on the in-process TaskService with the
 * memory store (no transport: the adapter's share is as large as it gets),
 * and over JSON-RPC on HTTP with the server in a process of its own (its
 * CPU per request, from /proc, and requests per second). After one uncounted run of each kind,
 * rounds alternate which goes first; the tables give medians.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/a2a-js-adapter-bench.ts [sends per run] [rounds] [concurrency] [HTTP seconds per run]
 */
import { fileURLToPath } from 'node:url';
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { agentOf } from './a2a-js-adapter-agents.js';
import { load, requestBody } from './http-load.js';
import { startServerProcess } from './server-process.js';

const SENDS = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 6);
const CONCURRENCY = Number(process.argv[4] ?? 32);
const WARM_UP = Math.min(2_000, SENDS);

/** Sends `count` messages with CONCURRENCY in flight; resolves this process's CPU µs per send. */
async function drive(service: TaskService, count: number): Promise<number> {
  let next = 0;
  const cpu = process.cpuUsage();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const result = await service.unary('SendMessage', { message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `Ada ${i}` }] } });
      if (!('task' in result) || result.task.status.state !== 'TASK_STATE_COMPLETED') throw new Error(`send ${i} did not complete: ${JSON.stringify(result)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / count;
}

/** One measured run of `agent` on a fresh service. */
async function run(agent: Agent): Promise<number> {
  const service = new TaskService({ store: createMemoryTaskStore({ maxTasks: Infinity }), agent });
  await drive(service, WARM_UP);
  const cpuUs = await drive(service, SENDS);
  await service.close();
  return cpuUs;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const HTTP_SECONDS = Number(process.argv[5] ?? 5);
const SERVER = fileURLToPath(new URL('./a2a-js-adapter-agents.ts', import.meta.url));
const KINDS = ['native', 'adapter'] as const;
const WORKLOADS = [
  { work: false, name: 'greet (completed)' },
  { work: true, name: 'work (working, artifact, completed)' },
];
const list = (values: number[]) => values.map((v) => v.toFixed(1)).join(', ');
const row = (name: string, runs: Record<(typeof KINDS)[number], number[]>) => {
  const [n, a] = [median(runs.native), median(runs.adapter)];
  return `| ${name} | ${n.toFixed(1)} | ${a.toFixed(1)} | ${(((a - n) / n) * 100).toFixed(1)}% | ${list(runs.native)} | ${list(runs.adapter)} |`;
};
const HEADER = '| agent | native CPU µs | adapter CPU µs | adapter costs more | native runs | adapter runs |\n| --- | ---: | ---: | ---: | --- | --- |';

/** Rounds of `measure` for both kinds, alternating which goes first, after one uncounted run of each. */
async function alternate(measure: (kind: (typeof KINDS)[number]) => Promise<number>): Promise<Record<(typeof KINDS)[number], number[]>> {
  const runs = { native: [] as number[], adapter: [] as number[] };
  for (const kind of KINDS) await measure(kind);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) runs[kind].push(await measure(kind));
  }
  return runs;
}

console.log(`\nfromA2AExecutor vs the same agent written natively (node ${process.version}), ${ROUNDS} alternating rounds, medians\n`);
console.log(`In-process TaskService, memory store: CPU µs per blocking send, ${SENDS.toLocaleString()} sends per run, ${CONCURRENCY} in flight\n`);
console.log(HEADER);
for (const { work, name } of WORKLOADS) console.log(row(name, await alternate((kind) => run(agentOf(kind, work)))));

console.log(`\nJSON-RPC over HTTP (serveA2A, memory store, a server process per kind): server CPU µs per request, ${HTTP_SECONDS} s of ${CONCURRENCY} connections per run\n`);
console.log(HEADER);
const body = requestBody('SendMessage', 'Ada');
const rateRows: string[] = [];
for (const { work, name } of WORKLOADS) {
  const servers = { native: await startServerProcess(SERVER, `native:${work ? 'work' : 'greet'}`, (port) => `http://127.0.0.1:${port}/a2a/jsonrpc`), adapter: await startServerProcess(SERVER, `adapter:${work ? 'work' : 'greet'}`, (port) => `http://127.0.0.1:${port}/a2a/jsonrpc`) };
  // Requests per second of each counted run (the uncounted first run of each kind is left out).
  const rates = { native: [] as number[], adapter: [] as number[] };
  const seen = { native: 0, adapter: 0 };
  try {
    const cpu = await alternate(async (kind) => {
      const result = await load(servers[kind], body, CONCURRENCY, HTTP_SECONDS);
      if (seen[kind]++ > 0) rates[kind].push(result.requests.average);
      return result.cpuMicrosPerRequest;
    });
    console.log(row(name, cpu));
    rateRows.push(`| ${name} | ${median(rates.native).toFixed(0)} | ${median(rates.adapter).toFixed(0)} | ${list(rates.native)} | ${list(rates.adapter)} |`);
  } finally {
    await servers.native.stop();
    await servers.adapter.stop();
  }
}
console.log(`\nThe same HTTP runs: requests per second (the machine's, not one core's: the load generator shares it)\n`);
console.log('| agent | native req/s | adapter req/s | native runs | adapter runs |\n| --- | ---: | ---: | --- | --- |');
for (const line of rateRows) console.log(line);
