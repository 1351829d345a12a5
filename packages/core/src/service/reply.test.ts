import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { reply } from '../agent/events.js';
import { A2AError } from '../errors.js';
import type { Message } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { deferred, gatedAgent } from './service-test-kit.js';
import { TaskService } from './task-service.js';
import type { StreamEvent } from '../calls.js';
import { stateOf } from './task-stream.js';

const user = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});


/** A memory store that counts the calls made to it, and can be told to fail commits. */
function countingStore() {
  const inner = createMemoryTaskStore();
  const calls: string[] = [];
  let failCommits = false;
  const store: TaskStore = {
    get: (id) => (calls.push('get'), inner.get(id)),
    commit: (request) => (calls.push('commit'), failCommits ? Promise.reject(new Error('the disk is full')) : inner.commit(request)),
    list: (query) => (calls.push('list'), inner.list(query)),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => (calls.push('readEvents'), inner.readEvents(id, after, limit)),
    close: () => inner.close(),
  };
  return { store, inner, calls, failWith: () => (failCommits = true) };
}

function serviceWith(agent: Agent) {
  const counted = countingStore();
  return { ...counted, service: new TaskService({ store: counted.store, agent }) };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('an agent that answers with a message (reply)', () => {
  it('makes no task: SendMessage returns the message, and nothing is stored', async () => {
    let wouldBe = '';
    const { service, inner, calls } = serviceWith(async (ctx) => {
      wouldBe = ctx.task.id;
      await ctx.reply(`pong: ${ctx.text}`);
    });
    const result = await service.unary('SendMessage', user('ping', { contextId: 'ctx-1' }));
    expect(result).toEqual({ message: { messageId: expect.any(String), role: 'ROLE_AGENT', parts: [{ text: 'pong: ping' }], contextId: 'ctx-1' } });
    expect(calls).toEqual([]);
    expect(await inner.list({ owner: '' })).toMatchObject({ tasks: [], totalSize: 0 });
    const error = await service.unary('GetTask', { id: wouldBe }).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('TaskNotFound');
  });

  it('streams that one message (sequence 0) and ends', async () => {
    const { service, calls } = serviceWith(async function* () {
      yield reply([{ text: 'pong' }]);
    });
    const events = await collect(await service.stream('SendStreamingMessage', user('ping')));
    expect(events).toEqual([{ sequence: 0, response: { message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'pong' }] }) } }]);
    expect(calls).toEqual([]);
    await service.idle();
  });

  it('completes a continued task with the message instead: a continuation stays within its task', async () => {
    const { service } = serviceWith(async (ctx) => (ctx.isContinuation ? ctx.reply('thanks') : ctx.inputRequired('which one?')));
    const first = await service.unary('SendMessage', user('start'));
    if (!('task' in first)) throw new Error('expected a task');
    const second = await service.unary('SendMessage', user('this one', { taskId: first.task.id }));
    expect(second).toMatchObject({ task: { id: first.task.id, status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'thanks' }], taskId: first.task.id } } } });
  });

  it('completes the task with the message when the task had to be stored at once (returnImmediately)', async () => {
    const { service } = serviceWith(async (ctx) => ctx.reply('pong'));
    const sent = await service.unary('SendMessage', { ...user('ping'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    await service.idle();
    const task = await service.unary('GetTask', { id: sent.task.id });
    expect(task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'pong' }] } });
  });

  it('refuses any event after a reply (InvalidAgentResponse)', async () => {
    const refused = deferred<unknown>();
    const { service } = serviceWith(async (ctx) => {
      await ctx.reply('pong');
      refused.resolve(await ctx.working('more?').catch((e: unknown) => e));
    });
    expect(await service.unary('SendMessage', user('ping'))).toHaveProperty('message');
    const error = await refused.promise;
    expect(A2AError.is(error) && error.kind).toBe('InvalidAgentResponse');
    await service.idle();
  });
});

describe('a new task', () => {
  it('is stored with the agent\'s first event in one commit; its log still starts with the task', async () => {
    let frozen = false;
    const { service, inner, calls } = serviceWith(async (ctx) => {
      frozen = Object.isFrozen(ctx.task) && Object.isFrozen(ctx.task.status) && Object.isFrozen(ctx.task.history);
      await ctx.complete(ctx.text);
    });
    const result = await service.unary('SendMessage', user('echo'));
    if (!('task' in result)) throw new Error('expected a task');
    expect(frozen).toBe(true); // not stored yet, but as immutable as a stored task
    expect(calls).toEqual(['commit']);
    const log = await inner.readEvents(result.task.id, 0);
    expect(log.map((e) => [e.sequence, Object.keys(e.event)[0], stateOf(e.event)])).toEqual([
      [1, 'task', 'TASK_STATE_SUBMITTED'],
      [2, 'statusUpdate', 'TASK_STATE_COMPLETED'],
    ]);
    expect(await inner.get(result.task.id)).toMatchObject({ version: 1, lastSequence: 2 });
  });

  it('of an agent slow to emit is stored on its own after the window, so it is visible while the agent works', async () => {
    const gated = gatedAgent();
    const { service, calls } = serviceWith(gated.agent);
    const sent = service.unary('SendMessage', user('slow'));
    const taskId = await gated.started;
    await service.engine.newTasks.whenCreated(taskId);
    expect(await service.unary('GetTask', { id: taskId })).toMatchObject({ status: { state: 'TASK_STATE_SUBMITTED' } });
    gated.release();
    expect(await sent).toMatchObject({ task: { id: taskId, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(calls.filter((c) => c === 'commit')).toHaveLength(2);
  });

  it('streams its task first even while the agent has not emitted yet', async () => {
    const gated = gatedAgent();
    const { service } = serviceWith(gated.agent);
    const events = (await service.stream('SendStreamingMessage', user('slow')))[Symbol.asyncIterator]();
    const first = await events.next();
    expect(first.value).toMatchObject({ sequence: 1, response: { task: { status: { state: 'TASK_STATE_SUBMITTED' } } } });
    gated.release();
    const rest: StreamEvent[] = [];
    for (let r = await events.next(); !r.done; r = await events.next()) rest.push(r.value);
    expect(rest.map((e) => [e.sequence, stateOf(e.response)])).toEqual([[2, 'TASK_STATE_COMPLETED']]);
  });

  it('waits for the first event at most newTaskWindowMs, a finite number of ms', () => {
    const store = createMemoryTaskStore();
    const agent: Agent = async (ctx) => ctx.complete('ok');
    for (const newTaskWindowMs of [-1, Infinity, Number.NaN]) {
      expect(() => new TaskService({ store, agent, newTaskWindowMs })).toThrow(/newTaskWindowMs must be a finite number/);
    }
    expect(() => new TaskService({ store, agent, newTaskWindowMs: 0 })).not.toThrow();
  });

  it('that cannot be stored fails the call with the store\'s error', async () => {
    const { service, failWith } = serviceWith(async (ctx) => ctx.complete('ok'));
    failWith();
    await expect(service.unary('SendMessage', user('x'))).rejects.toThrow('the disk is full');
    await expect(service.stream('SendStreamingMessage', user('y'))).rejects.toThrow('the disk is full');
    await service.idle();
  });
});
