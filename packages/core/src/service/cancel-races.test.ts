import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { fakeCoordinator, leasedStore } from './cluster-test-kit.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

describe('CancelTask racing other writers of its task', () => {
  it('in the process whose run lost its lease to another process, cancels the task as a cancel from any other process does: the canceled task, never Internal, the run here aborted', async () => {
    const leased = leasedStore();
    const fake = fakeCoordinator('here');
    const aborted = deferred<boolean>();
    // A run that goes on until its signal aborts.
    const agent: Agent = async (ctx) => {
      await ctx.working();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      aborted.resolve(true);
    };
    const service = new TaskService({ store: leased.store, agent, coordinator: fake.coordinator });
    const sent = await service.unary('SendMessage', { message: user('go'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const id = sent.task.id;
    await fake.whenHeld(id);
    // Another process took the task over; this one has not heard of it yet (no renewal has run since).
    await leased.takeOver(id, 'elsewhere');
    const canceled = await service.unary('CancelTask', { id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await leased.store.get(id))?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(await aborted.promise).toBe(true);
    await service.close();
  });

  it('while another writer commits to the task between each of its reads and commits, many times over: the canceled task, never a version conflict', async () => {
    const inner = createMemoryTaskStore();
    /** How many of the cancel's commits another writer overtakes. */
    let overtaken = 0;
    // Another process's busy run: before each of the cancel's first 30 commits lands, it commits a progress update.
    const store: TaskStore = {
      get: (id) => inner.get(id),
      async commit(request) {
        if (request.task.status.state === 'TASK_STATE_CANCELED' && overtaken < 30) {
          overtaken++;
          const current = (await inner.get(request.task.id))!;
          const status = { state: 'TASK_STATE_WORKING' as const };
          await inner.commit({ task: { ...current.task, status }, expectedVersion: current.version, owner: current.owner, events: [{ statusUpdate: { taskId: current.task.id, contextId: current.task.contextId, status } }] });
        }
        return inner.commit(request);
      },
      list: (query) => inner.list(query),
      delete: (id) => inner.delete(id),
      readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
      close: () => inner.close(),
    };
    const service = new TaskService({ store, agent: async (ctx) => ctx.inputRequired('which?') });
    const sent = await service.unary('SendMessage', { message: user('go') });
    if (!('task' in sent)) throw new Error('expected a task');
    const canceled = await service.unary('CancelTask', { id: sent.task.id });
    expect(overtaken).toBe(30);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    expect((await inner.get(sent.task.id))?.task.status.state).toBe('TASK_STATE_CANCELED');
    await service.close();
  });
});
