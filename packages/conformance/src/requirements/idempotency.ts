import type { Agent, StreamEvent, Task } from '@taskwire/core';
import { expect } from 'vitest';
import type { Harness } from '../harness.js';
import { userMessage } from '../harness.js';
import { requirement } from '../requirement.js';

/** An agent that counts its runs and answers with the count; on `wait` it says it `started` and waits for `release`. */
function countingAgent() {
  let runs = 0;
  let release!: () => void;
  let began!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (began = resolve));
  const agent: Agent = async (ctx) => {
    runs++;
    await ctx.working();
    if (ctx.text === 'wait') {
      began();
      await gate;
    }
    await ctx.complete(`run ${runs}`);
  };
  return { agent, runs: () => runs, started, release };
}

const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });

async function sendKeyed(x: Harness, message: ReturnType<typeof userMessage>, key: string): Promise<Task> {
  const result = await x.client.unary('SendMessage', { message }, keyed(key));
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

const taskOf = (events: readonly StreamEvent[]) => events.map((e) => ('task' in e.response ? e.response.task : undefined)).find(Boolean);

/** Idempotent first sends (the A2A 1.1 candidate: an `Idempotency-Key` on SendMessage, behind `protocol.v1_1`). */
export const idempotencyRequirements = [
  requirement('idempotent-send-retried', '3.1.1', 'a first send sent again with its Idempotency-Key answers with the same task and runs nothing again (streams too); without v1.1 the key is ignored', async (h) => {
    const counting = countingAgent();
    const x = await h.withService({ agent: counting.agent, protocol: { v1_1: true } });
    const message = userMessage('go');
    const key = crypto.randomUUID();
    const first = await sendKeyed(x, message, key);
    const again = await sendKeyed(x, message, key);
    expect(again.id).toBe(first.id);
    expect(again.status).toEqual(first.status);
    const streamed = taskOf(await x.collect(x.client.stream('SendStreamingMessage', { message }, keyed(key))));
    expect(streamed?.id).toBe(first.id);
    await x.idle();
    expect(counting.runs()).toBe(1);
    // Another key is another send.
    expect((await sendKeyed(x, userMessage('go'), crypto.randomUUID())).id).not.toBe(first.id);
    const plain = countingAgent();
    const v10 = await h.withService({ agent: plain.agent });
    expect((await sendKeyed(v10, message, key)).id).not.toBe((await sendKeyed(v10, message, key)).id);
    expect(plain.runs()).toBe(2);
  }),
  requirement('idempotent-send-in-flight', '3.1.1', 'a send again while the first still runs waits for the same task, and the agent runs once', async (h) => {
    const counting = countingAgent();
    const x = await h.withService({ agent: counting.agent, protocol: { v1_1: true } });
    const message = userMessage('wait');
    const key = crypto.randomUUID();
    const first = sendKeyed(x, message, key);
    await counting.started;
    const again = sendKeyed(x, message, key);
    const stream = x.client.stream('SendStreamingMessage', { message }, keyed(key))[Symbol.asyncIterator]();
    // The streamed retry is taken in (its first event is the running task) before the run may end.
    const opening = await stream.next();
    expect(opening.done || taskOf([opening.value])?.status.state).toBe('TASK_STATE_WORKING');
    counting.release();
    const rest: StreamEvent[] = [opening.value];
    const streamed = (async () => {
      for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
      return rest;
    })();
    const [a, b, events] = await Promise.all([first, again, streamed]);
    expect(b.id).toBe(a.id);
    expect(b.status.state).toBe('TASK_STATE_COMPLETED');
    expect(taskOf(events)?.id).toBe(a.id);
    await x.idle();
    expect(counting.runs()).toBe(1);
  }),
  requirement('idempotent-send-reused-key', '3.1.1', 'the same Idempotency-Key with another message is IdempotencyKeyReused (invalid params) and runs nothing', async (h) => {
    const counting = countingAgent();
    const x = await h.withService({ agent: counting.agent, protocol: { v1_1: true } });
    const key = crypto.randomUUID();
    const first = await sendKeyed(x, userMessage('go'), key);
    const refused = await x.error(sendKeyed(x, userMessage('something else'), key));
    expect(refused.kind).toBe('IdempotencyKeyReused');
    expect(refused.code).toBe(-32602);
    expect(refused.metadata.taskId).toBe(first.id);
    const stream = await x.error(() => x.collect(x.client.stream('SendStreamingMessage', { message: userMessage('go') }, keyed(key))));
    expect(stream.kind).toBe('IdempotencyKeyReused');
    await x.idle();
    expect(counting.runs()).toBe(1);
  }),
];
