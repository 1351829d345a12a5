import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { refuse } from '../agent/events.js';
import { A2AError } from '../errors.js';
import type { Message, Task } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { StreamEvent } from '../calls.js';
import { TaskService } from './task-service.js';

const user = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

function serviceWith(agent: Agent) {
  const store = createMemoryTaskStore();
  return { store, service: new TaskService({ store, agent, card: { capabilities: { streaming: true } } as never }) };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The task of a SendMessage result (the agents here always answer with one). */
const taskOf = (result: { task?: Task } | { message?: unknown }): Task => {
  if (!('task' in result) || !result.task) throw new Error('expected a task');
  return result.task;
};
const kindOf = (error: unknown) => (A2AError.is(error) ? [error.kind, error.message] : error);

describe('an agent that refuses its call (refuse)', () => {
  it('rejects a blocking send with its error and stores nothing, on a new task', async () => {
    const { service, store } = serviceWith(async (ctx) => ctx.refuse(new A2AError('UnsupportedOperation', 'not like this'), { blocking: new A2AError('Internal', 'no result') }));
    const error = await service.unary('SendMessage', user('hi')).catch((e: unknown) => e);
    expect(kindOf(error)).toEqual(['Internal', 'no result']);
    await service.idle();
    expect((await store.list({ owner: '' })).tasks).toEqual([]);
  });

  it('refuses a stream before its first event with the refusal error, on a new task', async () => {
    const { service, store } = serviceWith(async function* () {
      yield refuse(new A2AError('UnsupportedOperation', 'status before task'), { blocking: new A2AError('Internal', 'x') });
    });
    const error = await service.stream('SendStreamingMessage', user('hi')).catch((e: unknown) => e);
    expect(kindOf(error)).toEqual(['UnsupportedOperation', 'status before task']);
    await service.idle();
    expect((await store.list({ owner: '' })).tasks).toEqual([]);
  });

  it('on a stored task: ends the turn stream with the error, fails the task for other readers, and a blocking continuation gets the error', async () => {
    let turn = 0;
    const { service } = serviceWith(async (ctx) => {
      if (turn++ === 0) return ctx.inputRequired('more?');
      await ctx.working('thinking');
      await ctx.refuse(new A2AError('UnsupportedOperation', 'a second task event'));
    });
    const first = await service.unary('SendMessage', user('start'));
    const task = taskOf(first);
    const watcher = await service.stream('SubscribeToTask', { id: task.id });
    const watched = collect(watcher);
    const stream = await service.stream('SendStreamingMessage', user('next', { taskId: task.id, contextId: task.contextId }));
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of stream) events.push(event);
    })().catch((e: unknown) => e);
    // The turn's own stream: the events before the refusal, then the error (no failed status).
    expect(kindOf(error)).toEqual(['UnsupportedOperation', 'a second task event']);
    expect(events.map((e) => Object.keys(e.response)[0])).toEqual(['task', 'statusUpdate']);
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_WORKING' } } });
    // Another reader sees the task fail with the error's text.
    const last = (await watched).at(-1)!.response;
    expect(last).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'a second task event' }] } } } });

    turn = 0;
    const again = taskOf(await service.unary('SendMessage', user('start')));
    turn = 1;
    const blocked = await service.unary('SendMessage', user('next', { taskId: again.id, contextId: again.contextId })).catch((e: unknown) => e);
    expect(kindOf(blocked)).toEqual(['UnsupportedOperation', 'a second task event']);
    await service.idle();
    expect((await service.unary('GetTask', { id: again.id })).status.state).toBe('TASK_STATE_FAILED');
  });
});
