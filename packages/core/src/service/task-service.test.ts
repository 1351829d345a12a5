import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { artifact, completed, working } from '../agent/events.js';
import { A2AError } from '../errors.js';
import type { LogFields, Logger } from '../observability/logger.js';
import type { Message, Task } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CallContext } from '../calls.js';
import { TaskService } from './task-service.js';
import { stateOf } from './task-stream.js';

const user = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

function serviceWith(agent: Agent, logger?: Logger) {
  const store = createMemoryTaskStore();
  return { store, service: new TaskService({ store, agent, ...(logger && { logger }) }) };
}

async function send(service: TaskService, text: string, extra: Partial<Message> = {}, context: CallContext = {}): Promise<Task> {
  const result = await service.unary('SendMessage', user(text, extra), context);
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

async function failure(promise: Promise<unknown>): Promise<A2AError> {
  try {
    await promise;
  } catch (error) {
    if (A2AError.is(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('TaskService', () => {
  it('concurrent continuations of one input-required task: one is accepted, the rest get a clear error', async () => {
    const { service } = serviceWith(async (ctx) => {
      if (!ctx.isContinuation) return ctx.inputRequired('go on');
      await ctx.complete(`got ${ctx.text}`);
    });
    const task = await send(service, 'start');
    const outcomes = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => send(service, `answer ${i}`, { taskId: task.id })));
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(accepted).toHaveLength(1);
    for (const r of rejected) expect((r.reason as A2AError).code).toBe(-32004);
    const final = await service.unary('GetTask', { id: task.id });
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    const answers = final.history!.filter((m) => m.role === 'ROLE_USER' && m.parts.some((p) => 'text' in p && p.text.startsWith('answer')));
    expect(answers).toHaveLength(1);
  });

  it('an agent that throws fails its task with the error message', async () => {
    const { service } = serviceWith(async () => {
      throw new Error('the model is down');
    });
    const task = await send(service, 'x');
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts).toEqual([{ text: 'The agent failed: the model is down' }]);
  });

  it('an agent that emits an invalid transition gets InvalidAgentResponse and the task is not corrupted', async () => {
    let caught: unknown;
    const { service } = serviceWith(async (ctx) => {
      await ctx.complete('done');
      try {
        await ctx.working('again?');
      } catch (error) {
        caught = error;
      }
    });
    const task = await send(service, 'x');
    await service.idle();
    expect((caught as A2AError).kind).toBe('InvalidAgentResponse');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await service.unary('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an agent that returns without settling completes its task', async () => {
    const { service } = serviceWith(async (ctx) => {
      await ctx.working('thinking');
    });
    expect((await send(service, 'x')).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('an async-generator agent yields events', async () => {
    const { service } = serviceWith(async function* () {
      yield working('step 1');
      yield artifact({ name: 'out', text: 'a' });
      yield artifact({ name: 'out', text: 'b' }, { append: true, lastChunk: true });
      yield completed('ok');
    });
    const task = await send(service, 'x');
    expect(task.artifacts).toEqual([{ artifactId: 'out', name: 'out', parts: [{ text: 'a' }, { text: 'b' }] }]);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('cancel aborts the agent signal', async () => {
    let signalAborted!: Promise<unknown>;
    const { service } = serviceWith(async (ctx) => {
      signalAborted = new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(ctx.signal.reason), { once: true }));
      await ctx.working('busy');
      await signalAborted;
    });
    const running = await service.unary('SendMessage', { ...user('y'), configuration: { returnImmediately: true } });
    if (!('task' in running)) throw new Error('expected a task');
    const events = await service.stream('SubscribeToTask', { id: running.task.id });
    for await (const e of events) if (stateOf(e.response) === 'TASK_STATE_WORKING') break;
    const canceled = await service.unary('CancelTask', { id: running.task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect(String(await signalAborted)).toContain('canceled');
    await service.idle();
    expect((await service.unary('GetTask', { id: running.task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('tasks are scoped to their principal and tenant', async () => {
    const { service } = serviceWith(async (ctx) => ctx.inputRequired('more?'));
    const alice: CallContext = { principal: { id: 'alice' } };
    const bob: CallContext = { principal: { id: 'bob' } };
    const task = await send(service, 'x', {}, alice);
    expect((await failure(service.unary('GetTask', { id: task.id }, bob))).code).toBe(-32001);
    expect((await failure(service.unary('CancelTask', { id: task.id }, bob))).code).toBe(-32001);
    expect((await failure(service.stream('SubscribeToTask', { id: task.id }, bob))).code).toBe(-32001);
    expect((await failure(send(service, 'y', { taskId: task.id }, bob))).code).toBe(-32001);
    expect((await service.unary('ListTasks', {}, bob)).tasks).toEqual([]);
    expect((await service.unary('ListTasks', {}, alice)).tasks.map((t) => t.id)).toEqual([task.id]);
    expect((await failure(service.unary('GetTask', { id: task.id, tenant: 'other' }, alice))).code).toBe(-32001);
  });

  it('clientTaskIds creates a task under the id the client chose, but never takes over another caller\'s', async () => {
    const { service } = serviceWith(async (ctx) => ctx.complete('ok'));
    const task = await send(service, 'x', { taskId: 'client-chosen' }, { clientTaskIds: true });
    expect(task.id).toBe('client-chosen');
    const other = await failure(send(service, 'y', { taskId: 'client-chosen' }, { clientTaskIds: true, principal: { id: 'mallory' } }));
    expect(other.code).toBe(-32001);
    expect((await failure(send(service, 'z', { taskId: 'unknown-v1' }))).code).toBe(-32001);
  });

  it('a slow stream reader costs bounded memory and still gets every event once, in order', async () => {
    const { service } = serviceWith(async (ctx) => {
      for (let i = 1; i <= 600; i++) await ctx.artifact({ name: 'out', text: `${i}` }, { append: i > 1 });
    });
    const events = await service.stream('SendStreamingMessage', user('go'));
    const iterator = events[Symbol.asyncIterator]();
    const first = await iterator.next();
    await service.idle(); // the reader did not read while all 600 events were committed
    const rest: number[] = [];
    for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value.sequence);
    expect(first.value.sequence).toBe(1);
    expect(rest).toEqual(Array.from({ length: rest.length }, (_, i) => i + 2));
    expect(rest.length).toBe(601);
    expect(service.engine.hub.count(first.value.response.task.id)).toBe(0);
  });

  it('a resume whose events the store no longer has starts again from the current task, and goes on', async () => {
    const store = createMemoryTaskStore({ maxEventsPerTask: 5 });
    const service = new TaskService({
      store,
      agent: async (ctx) => {
        if (ctx.isContinuation) return ctx.complete('thanks');
        for (let i = 1; i <= 20; i++) await ctx.working(`${i}`);
        await ctx.inputRequired('more?');
      },
    });
    const task = await send(service, 'x');
    const events = (await service.stream('SubscribeToTask', { id: task.id, afterSequence: 2 }))[Symbol.asyncIterator]();
    const first = (await events.next()).value;
    expect(first.response).toMatchObject({ task: { id: task.id, status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    expect(first.sequence).toBe(22);
    await send(service, 'more', { taskId: task.id });
    const rest = [];
    for (let r = await events.next(); !r.done; r = await events.next()) rest.push(r.value);
    expect(rest.map((e) => e.sequence)).toEqual([23, 24]);
    expect(stateOf(rest.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
  });

  it('a live reader that fell behind the retained events gets the task as it is now, then the rest', async () => {
    const store = createMemoryTaskStore({ maxEventsPerTask: 5 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const emitted = new Promise<void>((resolve) => (reached = resolve));
    const service = new TaskService({
      store,
      agent: async (ctx) => {
        for (let i = 1; i <= 300; i++) await ctx.artifact({ name: 'out', text: `${i}` }, { append: i > 1 });
        reached();
        await gate;
        await ctx.complete('done');
      },
    });
    const events = (await service.stream('SendStreamingMessage', user('go')))[Symbol.asyncIterator]();
    expect((await events.next()).value.sequence).toBe(1);
    // The reader sleeps through 300 events: more than its buffer holds and more than the store keeps.
    await emitted;
    const snapshot = (await events.next()).value;
    expect(snapshot.sequence).toBe(301);
    expect(snapshot.response).toMatchObject({ task: { artifacts: [{ artifactId: 'out', parts: Array.from({ length: 300 }, (_, i) => ({ text: `${i + 1}` })) }] } });
    release();
    const rest = [];
    for (let r = await events.next(); !r.done; r = await events.next()) rest.push(r.value);
    expect(rest.map((e) => e.sequence)).toEqual([302]);
    expect(stateOf(rest[0]!.response)).toBe('TASK_STATE_COMPLETED');
  });
});

describe('TaskService.close', () => {
  it('fails the tasks still running, saying the server stopped, and leaves settled ones alone', async () => {
    const logged: string[] = [];
    const line = (fields: LogFields, message?: string) => void logged.push(`${message} ${JSON.stringify(fields)}`);
    const { service } = serviceWith(async (ctx) => {
      if (ctx.text === 'wait') return ctx.inputRequired('more?');
      await ctx.working('busy');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    }, { warn: line, error: line });
    const waiting = await send(service, 'wait');
    const running = await service.unary('SendMessage', { ...user('run'), configuration: { returnImmediately: true } });
    if (!('task' in running)) throw new Error('expected a task');
    for await (const e of await service.stream('SubscribeToTask', { id: running.task.id })) {
      if (stateOf(e.response) === 'TASK_STATE_WORKING') break;
    }
    await service.close();
    const stopped = await service.unary('GetTask', { id: running.task.id });
    expect(stopped.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(stopped.status.message?.parts)).toContain('shut down');
    expect((await service.unary('GetTask', { id: waiting.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // One calm line per stopped task: a shutdown, not an agent failure.
    expect(logged).toEqual([`the server stopped while this task ran: it failed, saying so (send it again after a restart) {"taskId":"${running.task.id}"}`]);
  });
});

describe('SubscribeToTask', () => {
  it('follows a task through input-required to its terminal state; a resume that missed nothing repeats nothing', async () => {
    const { service } = serviceWith(async (ctx) => {
      if (!ctx.isContinuation) return ctx.inputRequired('more?');
      await ctx.working('on it');
      await ctx.complete('done');
    });
    const asked = await send(service, 'ask');
    const watching = (await service.stream('SubscribeToTask', { id: asked.id }))[Symbol.asyncIterator]();
    const first = (await watching.next()).value;
    expect(stateOf(first.response)).toBe('TASK_STATE_INPUT_REQUIRED');
    const quiet = (await service.stream('SubscribeToTask', { id: asked.id, afterSequence: first.sequence }))[Symbol.asyncIterator]();
    await send(service, 'answer', { taskId: asked.id });
    const seen = [];
    for (let r = await watching.next(); !r.done; r = await watching.next()) seen.push(r.value);
    expect(seen.map((e) => stateOf(e.response))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const resumed = [];
    for (let r = await quiet.next(); !r.done; r = await quiet.next()) resumed.push(r.value);
    expect(resumed).toEqual(seen);
    expect(service.engine.hub.count(asked.id)).toBe(0);
  });

  it('a streamed message still ends at input-required', async () => {
    const { service } = serviceWith(async (ctx) => ctx.inputRequired('more?'));
    const events = [];
    for await (const e of await service.stream('SendStreamingMessage', user('ask'))) events.push(e);
    expect(events.map((e) => stateOf(e.response))).toEqual(['TASK_STATE_SUBMITTED', 'TASK_STATE_INPUT_REQUIRED']);
  });
});
