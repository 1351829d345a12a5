/**
 * How `waitForTask` notices the end of a `slow 50` task of the reference
 * agent (50 rounds 100 ms apart, about 5 s): on an agent whose card says it
 * streams (it follows the task with SubscribeToTask, then reads it once), on
 * one whose card says it does not (backoff polling of GetTask), and against
 * a fixed 100 ms polling loop: the calls each made (GetTask and
 * SubscribeToTask, counted by a client interceptor) and how long after the
 * task completed each one noticed. Real JSON-RPC over HTTP on 127.0.0.1.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/client-wait-bench.ts [runs] [rounds]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import type { A2AClient, BackoffOptions } from '@taskwire/client';
import { createClient, DEFAULT_POLL_BACKOFF } from '@taskwire/client';
import type { Task } from '@taskwire/core';
import { createMemoryTaskStore, isSettled, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';

const RUNS = Number(process.argv[2] ?? 5);
const ROUNDS = Number(process.argv[3] ?? 50);

interface Sample {
  readonly calls: number;
  /** From the task's completion (its status timestamp) to the caller seeing it, in ms. */
  readonly latencyMs: number;
}

async function start(client: A2AClient): Promise<string> {
  const sent = await client.sendMessage({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow ${ROUNDS}` }] },
    configuration: { returnImmediately: true },
  });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task.id;
}

function latency(task: Task, seenAt: number): number {
  return seenAt - Date.parse(task.status.timestamp!);
}

async function waiting(client: A2AClient, counter: { calls: number }): Promise<Sample> {
  const id = await start(client);
  counter.calls = 0;
  const task = await client.waitForTask(id);
  return { calls: counter.calls, latencyMs: latency(task, Date.now()) };
}

async function fixedPolling(client: A2AClient, counter: { calls: number }, everyMs: number): Promise<Sample> {
  const id = await start(client);
  counter.calls = 0;
  for (;;) {
    const task = await client.getTask({ id });
    if (isSettled(task.status.state)) return { calls: counter.calls, latencyMs: latency(task, Date.now()) };
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

function summary(name: string, samples: readonly Sample[]): string {
  const mean = (f: (s: Sample) => number) => samples.reduce((sum, s) => sum + f(s), 0) / samples.length;
  const range = (f: (s: Sample) => number) => `${Math.min(...samples.map(f)).toFixed(0)}–${Math.max(...samples.map(f)).toFixed(0)}`;
  return `${name.padEnd(72)} calls: mean ${mean((s) => s.calls).toFixed(1).padStart(5)} (${range((s) => s.calls)})   detection latency: mean ${mean((s) => s.latencyMs).toFixed(0).padStart(4)} ms (${range((s) => s.latencyMs)} ms)`;
}

/** Serves the reference agent with a card that says whether it streams; a client counting its GetTask and SubscribeToTask calls. */
async function agent(streaming: boolean) {
  const base = referenceAgentCard([{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  const card = { ...base, capabilities: { ...base.capabilities, streaming } };
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
  const server = await serveA2A({ service });
  const counter = { calls: 0 };
  const client = await createClient(server.url, {
    interceptors: [{ before: (call) => void ((call.method === 'GetTask' || call.method === 'SubscribeToTask') && counter.calls++) }],
  });
  return {
    client,
    counter,
    async close() {
      await client.close();
      await server.close();
      await service.close();
    },
  };
}

async function main(): Promise<void> {
  const streaming = await agent(true);
  const polled = await agent(false);
  const b: BackoffOptions = DEFAULT_POLL_BACKOFF;
  console.log(`slow ${ROUNDS} (about ${(ROUNDS * 0.1).toFixed(1)} s of work), ${RUNS} runs each, JSON-RPC over HTTP on 127.0.0.1`);
  try {
    const followed: Sample[] = [];
    const backoff: Sample[] = [];
    const fixed: Sample[] = [];
    for (let i = 0; i < RUNS; i++) {
      followed.push(await waiting(streaming.client, streaming.counter));
      backoff.push(await waiting(polled.client, polled.counter));
      fixed.push(await fixedPolling(polled.client, polled.counter, 100));
    }
    console.log(summary('waitForTask, streaming agent (SubscribeToTask + GetTask)', followed));
    console.log(summary(`waitForTask, agent without streaming (backoff ${b.initialMs}×${b.factor} up to ${b.maxDelayMs} ms)`, backoff));
    console.log(summary('fixed polling every 100 ms', fixed));
  } finally {
    await streaming.close();
    await polled.close();
  }
}

await main();
