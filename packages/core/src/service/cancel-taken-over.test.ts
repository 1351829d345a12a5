import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message } from '../schema/index.js';
import { fakeCoordinator, leasedStore } from './cluster-test-kit.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

describe('CancelTask in the process whose run lost its lease (several processes on the store)', () => {
  it('cancels the task as a cancel from any other process does: the canceled task, never Internal, the run here aborted', async () => {
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
});
