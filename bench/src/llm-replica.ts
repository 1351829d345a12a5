/**
 * One replica of the LLM-like benchmark (pg-llm-bench.ts), in its own
 * process: Taskwire on @taskwire/postgres with a coordinator (as the
 * reference agent runs on PostgreSQL), JSON-RPC at /a2a/jsonrpc, and an
 * agent that relays a simulated model's answer:
 *
 * - `llm <n> <ms> <mode>`: a model makes n text deltas, one every `<ms>`
 *   on its own clock (they queue when the agent falls behind, as a
 *   provider's socket would), each the time it was made (ms since the
 *   epoch, one decimal) and a space; the agent streams them as chunks of
 *   the artifact `answer` and completes. `<mode>` is `off` (each delta
 *   awaited before the next, one commit per delta: the AI SDK adapter
 *   before coalescing), `grouped` (each delta its own chunk, emitted
 *   without awaiting: the deltas made while the previous commit is in
 *   flight go in the next commit together, unmerged), `inflight`
 *   (`coalesce: true`) or a number of milliseconds (`coalesce: {
 *   minIntervalMs }`; the adapter's default is 50), the coalesced deltas
 *   emitted without awaiting each one.
 *
 * $BENCH_DATABASE_URL names the database (migrated by the driver). Prints
 * `READY <port>`; exits on SIGTERM / SIGINT.
 */
import { pathToFileURL } from 'node:url';
import type { Agent, AgentContext, CoalesceOptions } from '@taskwire/core';
import { TaskService } from '@taskwire/core';
import { createPostgresCoordinator, createPostgresTaskStore } from '@taskwire/postgres';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { serveReplica } from './replica-server.js';

/** The deltas of a simulated model: `n` of them, one every `ms`, whether or not they are read; stops when `signal` aborts. */
async function* model(n: number, ms: number, signal: AbortSignal): AsyncGenerator<string> {
  const made: string[] = [];
  let wake: (() => void) | undefined;
  let count = 0;
  const timer = setInterval(() => {
    made.push(`${(performance.timeOrigin + performance.now()).toFixed(1)} `);
    if (++count === n) clearInterval(timer);
    wake?.();
  }, ms);
  try {
    for (let read = 0; read < n && !signal.aborted; read++) {
      while (made.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      yield made.shift()!;
    }
  } finally {
    clearInterval(timer);
  }
}

async function relay(ctx: AgentContext, n: number, ms: number, mode: string): Promise<void> {
  const coalesce: false | true | CoalesceOptions = mode === 'off' || mode === 'grouped' ? false : mode === 'inflight' ? true : { minIntervalMs: Number(mode) };
  let first = true;
  for await (const delta of model(n, ms, ctx.signal)) {
    const options = { append: !first, ...(coalesce !== false && { coalesce }) };
    first = false;
    const sent = ctx.artifact({ name: 'answer', text: delta }, options);
    // Coalescing or grouping, the promise is not awaited (a failure rejects the last chunk below too).
    if (mode === 'off') await sent;
    else sent.catch(() => undefined);
  }
  // The end of the artifact: joins the deltas still waiting, if any; resolves once every delta is committed.
  await ctx.artifact({ name: 'answer', text: '' }, { append: true, lastChunk: true, ...(coalesce !== false && { coalesce }) });
  await ctx.complete('done');
}

const agent: Agent = async (ctx) => {
  const [word, n, ms, mode] = ctx.text.split(' ');
  if (word !== 'llm') return ctx.reject('send "llm <n> <ms> <off|grouped|inflight|interval ms>"');
  await relay(ctx, Number(n), Number(ms), mode ?? 'off');
};

async function main(): Promise<void> {
  const store = await createPostgresTaskStore({ connectionString: process.env.BENCH_DATABASE_URL! });
  const coordinator = await createPostgresCoordinator({ store });
  const card = referenceAgentCard([{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const service = new TaskService({ store, agent, card, coordinator });
  await serveReplica(service, [() => coordinator.close(), () => store.close()]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
