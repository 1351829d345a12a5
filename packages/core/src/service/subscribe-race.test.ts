import { describe, expect, it } from 'vitest';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskRecord, TaskStore } from '../store/task-store.js';
import { TaskService } from './task-service.js';
import { stateOf } from './task-stream.js';

/** A store whose next `get` runs `between` after reading and before answering (a commit that slips in). */
function storeWithGap(): { store: TaskStore; arm: (between: () => Promise<unknown>) => void } {
  const inner = createMemoryTaskStore();
  let between: (() => Promise<unknown>) | undefined;
  const store: TaskStore = Object.assign(Object.create(inner) as TaskStore, {
    async get(taskId: string): Promise<TaskRecord | undefined> {
      const record = await inner.get(taskId);
      const run = between;
      between = undefined;
      if (run) await run();
      return record;
    },
  });
  return { store, arm: (fn) => (between = fn) };
}

describe('SubscribeToTask and a commit between its read and its subscription', () => {
  it('still delivers the event committed in between (here the final one, so the stream ends)', async () => {
    const { store, arm } = storeWithGap();
    const service = new TaskService({ store, agent: async (ctx) => ctx.inputRequired('which one?') });
    const sent = await service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } });
    if (!('task' in sent)) throw new Error('expected a task');
    const id = sent.task.id;
    expect(sent.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await service.idle(); // the run has ended: the task is read from the store, not from a running one
    arm(() => service.unary('CancelTask', { id }));
    const states: (string | undefined)[] = [];
    for await (const event of await service.stream('SubscribeToTask', { id })) states.push(stateOf(event.response));
    expect(states).toEqual(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_CANCELED']);
  });
});
