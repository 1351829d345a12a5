import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message, Task } from '../schema/index.js';
import { FileTaskStore } from '../store/file-store.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { ABANDONED } from './agent-run.js';
import { TaskService } from './task-service.js';

const user = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

/** `hang` keeps working until the process "dies"; `ask` waits for input; anything else completes. */
const agent: Agent = async (ctx) => {
  if (ctx.text === 'hang') {
    await ctx.working('on it');
    return new Promise<void>(() => {});
  }
  if (ctx.text === 'ask' && !ctx.isContinuation) return ctx.inputRequired('which one?');
  await ctx.complete('done');
};

async function send(service: TaskService, text: string, returnImmediately = false): Promise<Task> {
  const result = await service.unary('SendMessage', { ...user(text), configuration: { returnImmediately } });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

/** What a crashed process leaves in `store`: a working task, a submitted one, an input-required one and a completed one. */
async function crashedRun(store: TaskStore) {
  const dead = new TaskService({ store, agent });
  let working = '';
  for await (const { response } of await dead.stream('SendStreamingMessage', user('hang'))) {
    if ('task' in response) working = response.task.id;
    if ('statusUpdate' in response && response.statusUpdate.status.state === 'TASK_STATE_WORKING') break;
  }
  const submitted = await dead.engine.newTasks.create(
    { id: 'left-submitted', contextId: 'c', status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() } },
    '',
  );
  const asking = await send(dead, 'ask');
  const done = await send(dead, 'finish');
  // The process dies here: `dead` is never closed, its `hang` run never ends.
  return { working, submitted: submitted.task.id, asking: asking.id, done: done.id };
}

describe('TaskService.recover (tasks a stopped process left running)', () => {
  it('fails every submitted or working task with a message, and leaves interrupted and terminal ones alone', async () => {
    const store = createMemoryTaskStore();
    const left = await crashedRun(store);
    const service = new TaskService({ store, agent });
    expect((await service.recover()).sort()).toEqual([left.working, left.submitted].sort());
    for (const id of [left.working, left.submitted]) {
      const task = await service.unary('GetTask', { id });
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(task.status.message?.parts).toEqual([{ text: ABANDONED }]);
    }
    expect((await service.unary('GetTask', { id: left.asking })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await service.unary('GetTask', { id: left.done })).status.state).toBe('TASK_STATE_COMPLETED');
    // The interrupted task still takes its next message; a second recover finds nothing.
    const continued = await service.unary('SendMessage', user('yes', { taskId: left.asking }));
    expect('task' in continued && continued.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await service.recover()).toEqual([]);
  });

  it('a subscriber resuming after the restart sees the failure as the stream end', async () => {
    const store = createMemoryTaskStore();
    const left = await crashedRun(store);
    const service = new TaskService({ store, agent });
    await service.recover();
    const seen = [];
    for await (const event of await service.stream('SubscribeToTask', { id: left.working, afterSequence: 1 })) seen.push(event);
    expect(seen.map((e) => e.sequence)).toEqual([2, 3]);
    expect(seen.at(-1)?.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_FAILED' } } });
  });

  it('never touches a task whose run is in progress in this process', async () => {
    const store = createMemoryTaskStore();
    const service = new TaskService({ store, agent });
    const live = await send(service, 'hang', true);
    expect(await service.recover()).toEqual([]);
    expect((await service.unary('GetTask', { id: live.id })).status.state).not.toBe('TASK_STATE_FAILED');
  });

  it('works on a reopened file store, and the failure is durable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-recover-'));
    try {
      const first = await FileTaskStore.open(dir);
      const left = await crashedRun(first);
      await first.close();
      const second = await FileTaskStore.open(dir);
      expect((await second.unsettled()).sort()).toEqual([left.working, left.submitted].sort());
      expect((await new TaskService({ store: second, agent }).recover()).sort()).toEqual([left.working, left.submitted].sort());
      await second.close();
      const third = await FileTaskStore.open(dir);
      expect(await third.unsettled()).toEqual([]);
      expect((await third.get(left.working))?.task.status.state).toBe('TASK_STATE_FAILED');
      await third.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
