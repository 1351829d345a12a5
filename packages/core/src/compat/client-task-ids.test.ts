import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import { TaskService } from '../service/task-service.js';
import { createMemoryTaskStore } from '../store/memory-store.js';

const agent: Agent = async (ctx) => (ctx.text === 'ask' ? ctx.inputRequired('more?') : ctx.complete('ok'));
const message = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

describe('CallContext.clientTaskIds (v0.3 clients choose new task ids)', () => {
  let service: TaskService;
  afterEach(() => service.close());

  it('creates a task with the id an unknown taskId names', async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent });
    const result = await service.unary('SendMessage', message('hi', { taskId: 'client-chosen', contextId: 'ctx' }), { clientTaskIds: true });
    expect('task' in result && result.task.id).toBe('client-chosen');
    expect('task' in result && result.task.contextId).toBe('ctx');
    expect('task' in result && result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('is per call: a call without it still gets TaskNotFound', async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent });
    const error = await service.unary('SendMessage', message('hi', { taskId: 'other-id' }), {}).catch((e: unknown) => e);
    expect(A2AError.is(error) && error.code).toBe(-32001);
  });

  it("never takes over another caller's task id", async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent });
    await service.unary('SendMessage', message('ask', { taskId: 'shared' }), { clientTaskIds: true, principal: { id: 'alice' } });
    const error = await service
      .unary('SendMessage', message('hi', { taskId: 'shared' }), { clientTaskIds: true, principal: { id: 'mallory' } })
      .catch((e: unknown) => e);
    expect(A2AError.is(error) && error.code).toBe(-32001);
  });

  it('still continues an existing interrupted task and rejects a terminal one', async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent });
    const ctx = { clientTaskIds: true };
    const first = await service.unary('SendMessage', message('ask', { taskId: 'a' }), ctx);
    expect('task' in first && first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await service.unary('SendMessage', message('fine', { taskId: 'a' }), ctx);
    expect('task' in second && second.task.status.state).toBe('TASK_STATE_COMPLETED');
    const reuse = await service.unary('SendMessage', message('again', { taskId: 'a' }), ctx).catch((e: unknown) => e);
    expect(A2AError.is(reuse) && reuse.code).toBe(-32004);
  });
});
