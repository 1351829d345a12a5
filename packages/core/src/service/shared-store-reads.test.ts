import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskCoordinator } from './coordination.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

/** A coordinator of a store shared with other processes whose wake-ups have not arrived yet (they never do here). */
function silentSharedCoordinator(processId: string): TaskCoordinator {
  return {
    shared: true,
    processId,
    leaseTtlMs: 60_000,
    watch: () => () => {},
    hold: () => () => {},
    attach: () => {},
    recover: async () => [],
    close: async () => {},
  };
}

describe('reads on a store shared by several processes', () => {
  it('GetTask on the process running the agent shows a cancel committed by another process before any wake-up', async () => {
    const store = createMemoryTaskStore();
    const working = deferred<string>();
    const agent: Agent = async (ctx) => {
      await ctx.working('busy');
      working.resolve(ctx.task.id);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    };
    const a = new TaskService({ store, agent, coordinator: silentSharedCoordinator('a') });
    const b = new TaskService({ store, agent, coordinator: silentSharedCoordinator('b') });
    await a.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] }, configuration: { returnImmediately: true } });
    const id = await working.promise;
    expect((await b.unary('CancelTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    expect((await a.unary('GetTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    await Promise.all([a.close(), b.close()]);
    expect((await store.get(id))?.task.status.state).toBe('TASK_STATE_CANCELED');
  });
});
