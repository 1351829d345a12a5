import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message } from '../schema/index.js';
import { fakeCoordinator, leasedStore } from './cluster-test-kit.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

describe('the claim of an owed run (several processes on the store)', () => {
  it('a message sent again to the process that gave its run up is not run again there: its row names that process at an epoch it held', async () => {
    const leased = leasedStore();
    const fake = fakeCoordinator('here');
    const started = deferred<string>();
    let runs = 0;
    // The first run waits until it is aborted (its lease given up); a second run would complete at once.
    const agent: Agent = async (ctx) => {
      if (++runs > 1) return ctx.complete('ran twice');
      started.resolve(ctx.task.id);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    };
    const service = new TaskService({ store: leased.store, agent, coordinator: fake.coordinator, newTaskWindowMs: 0, unknownTaskId: 'create' });
    const message: Message = { messageId: crypto.randomUUID(), role: 'ROLE_USER', taskId: 'owed-1', parts: [{ text: 'go' }] };
    await service.unary('SendMessage', { message, configuration: { returnImmediately: true } });
    const id = await started.promise;
    const epoch = await fake.whenHeld(id);
    // The lease is given up here (renewals failed for nearly a lease): the run stops; the row still names this process.
    fake.lose(id);
    await service.idle();
    // The client sends the message again, to this process: the row is this process's at the epoch its run held.
    const again = await service.unary('SendMessage', { message, configuration: { returnImmediately: true } });
    await service.idle();
    expect(runs).toBe(1);
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_SUBMITTED');
    // The claim carried that epoch; the task is left to the self-sweep, which settles it.
    expect(leased.requests.at(-1)?.lease).toMatchObject({ kind: 'claim', ifFree: true, heldEpoch: epoch });
    expect((await leased.store.get(id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    await service.close();
  });
});
