// The remote-agent tool call (remoteAgentCalls, shared by every framework's
// a2aTool): a caller that aborts before the remote task's first event (or
// the answer to a blocking send) has reached the tool still gets that task
// canceled (the task the call answers when no event comes in time), over
// HTTP at 127.0.0.1.
import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { afterEach, describe, expect, it } from 'vitest';
import { finalOutput, remoteAgentCalls } from '../src/agent-tool.js';
import type { A2AClient } from '../src/client.js';
import { createClient } from '../src/create-client.js';

/** A promise and what resolves it. */
function latch<T = void>(): { done: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const done = new Promise<T>((resolve) => (open = resolve));
  return { done, open };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Serves an agent that says its task started, waits for `release` before its
 * first event (a new task's stream waits for that event), then works until
 * canceled; the client for the tool holds the answer of each SendMessage
 * until `release` too (it has not reached the tool yet), saying when it came.
 */
async function heldRemote(streaming: boolean) {
  const started = latch<string>();
  const release = latch();
  const answered = latch();
  const stop = latch();
  const agent: Agent = async (ctx) => {
    started.open(ctx.task.id);
    await release.done;
    await ctx.working('working');
    await Promise.race([stop.done, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))]);
  };
  const base = referenceAgentCard([]);
  const card = { ...base, capabilities: { ...base.capabilities, streaming } };
  const service = new TaskService({ store: createMemoryTaskStore(), agent, card, newTaskWindowMs: 60_000 });
  const http = await serveA2A({ service, card: (url) => ({ ...card, supportedInterfaces: httpInterfaces(url) }) });
  const holding = { after: async (call: { method: string }) => void (call.method === 'SendMessage' && (answered.open(), await release.done)) };
  const client: A2AClient = await createClient(http.url, { interceptors: [holding] });
  const reader = await createClient(http.url);
  cleanups.push(async () => {
    release.open();
    stop.open();
    await client.close();
    await reader.close();
    await http.close();
    await service.close();
  });
  return { client, reader, started: started.done, answered: answered.done, release: () => release.open() };
}

describe('remoteAgentCalls: an abort before the remote task reached the tool', () => {
  it.each([
    ['streamed: its first event comes after the abort', true],
    ['blocking send: its answer comes after the abort', false],
  ] as const)('%s; the tool cancels the task and ends with the abort', async (_name, streaming) => {
    const remote = await heldRemote(streaming);
    const call = remoteAgentCalls({ client: remote.client, cancelTimeoutMs: 30_000 });
    const caller = new AbortController();
    const ended = finalOutput(call({ message: 'work' }, caller.signal));
    ended.catch(() => undefined);
    if (streaming) await remote.started;
    else await remote.answered;
    const reason = new Error('the caller stopped');
    caller.abort(reason);
    remote.release();
    await expect(ended).rejects.toBe(reason);
    const task = await remote.reader.getTask({ id: await remote.started });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  }, 30_000);

  it('drops the request and ends with the abort when no first event comes within cancelTimeoutMs', async () => {
    const remote = await heldRemote(true);
    const call = remoteAgentCalls({ client: remote.client, cancelTimeoutMs: 50 });
    const caller = new AbortController();
    const ended = finalOutput(call({ message: 'work' }, caller.signal));
    ended.catch(() => undefined);
    await remote.started;
    const reason = new Error('the caller stopped');
    caller.abort(reason);
    // The agent's first event stays held: only the bound can end the call.
    await expect(ended).rejects.toBe(reason);
  }, 30_000);

  it('a call that answers a task cancels that task when no first event comes within cancelTimeoutMs', async () => {
    // The first turn asks for input; the answer's turn works until canceled, and its send's answer is held back.
    const agent: Agent = async (ctx) => {
      if (!ctx.isContinuation) return ctx.inputRequired('Which one?');
      await ctx.working('working');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    };
    const base = referenceAgentCard([]);
    const card = { ...base, capabilities: { ...base.capabilities, streaming: false } };
    const service = new TaskService({ store: createMemoryTaskStore(), agent, card });
    const http = await serveA2A({ service, card: (url) => ({ ...card, supportedInterfaces: httpInterfaces(url) }) });
    const release = latch();
    const answered = latch();
    let hold = false;
    const holding = { after: async (call: { method: string }) => void (hold && call.method === 'SendMessage' && (answered.open(), await release.done)) };
    const client = await createClient(http.url, { interceptors: [holding] });
    cleanups.push(async () => {
      release.open();
      await client.close();
      await http.close();
      await service.close();
    });
    const call = remoteAgentCalls({ client, cancelTimeoutMs: 50 });
    const asked = await finalOutput(call({ message: 'book' }));
    expect(asked.state).toBe('input-required');
    hold = true;
    const caller = new AbortController();
    const ended = finalOutput(call({ message: 'the first', taskId: asked.taskId }, caller.signal));
    ended.catch(() => undefined);
    await answered.done;
    const reason = new Error('the caller stopped');
    caller.abort(reason);
    await expect(ended).rejects.toBe(reason);
    const task = await service.unary('GetTask', { id: asked.taskId! });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  }, 30_000);
});

