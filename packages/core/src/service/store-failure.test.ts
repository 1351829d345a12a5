import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { TaskService } from './task-service.js';

/** A memory store whose commits and reads fail once `down` is set (a database that went away). */
function failingStore(): { store: TaskStore; down(): void } {
  const inner = createMemoryTaskStore();
  let down = false;
  const unavailable = () => Promise.reject(new A2AError('Internal', 'The task database is unreachable; retry shortly', { retryable: 'true' }));
  const store: TaskStore = {
    get: (id) => (down ? unavailable() : inner.get(id)),
    commit: (request) => (down ? unavailable() : inner.commit(request)),
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  return { store, down: () => void (down = true) };
}

describe('a store that fails while a task runs', () => {
  it('fails a blocking SendMessage with the store\'s error instead of leaving it waiting', async () => {
    const { store, down } = failingStore();
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const agent: Agent = async (ctx) => {
      await ctx.working('started');
      down();
      await gate;
      await ctx.complete('done');
    };
    const service = new TaskService({ store, agent, newTaskWindowMs: 0 });
    const sent = service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    proceed();
    await expect(sent).rejects.toMatchObject({ kind: 'Internal', message: expect.stringMatching(/database is unreachable/) });
    await service.close();
  });
});
