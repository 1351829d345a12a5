import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import type { Task } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CallContext } from '../calls.js';
import { randomId } from '../random-id.js';
import { deferred, gatedAgent } from './service-test-kit.js';
import { TaskService } from './task-service.js';


function serviceWith(agent: Agent) {
  const store = createMemoryTaskStore();
  return { store, service: new TaskService({ store, agent }) };
}

async function send(service: TaskService, text: string, context: CallContext = {}, returnImmediately = false): Promise<Task> {
  const params = { message: { messageId: randomId(), role: 'ROLE_USER', parts: [{ text }] }, configuration: { returnImmediately } };
  const result = await service.unary('SendMessage', params, context);
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

describe('randomId', () => {
  it('makes distinct version 4 UUIDs, across refills of its random pool', () => {
    const ids = Array.from({ length: 1_000 }, randomId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the agent context', () => {
  it('lets an agent destructure its helpers and text', async () => {
    const { service } = serviceWith(async ({ text, complete }) => complete(`you said ${text}`));
    const task = await send(service, 'hello');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message?.parts).toEqual([{ text: 'you said hello' }]);
  });

  it('gives a signal that is already aborted, with the cancel reason, when first read after a cancel', async () => {
    const gate = deferred();
    const seen = deferred<{ aborted: boolean; reason: unknown }>();
    const { service } = serviceWith(async (ctx) => {
      await gate.promise;
      seen.resolve({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
    });
    const task = await send(service, 'wait', {}, true);
    await service.unary('CancelTask', { id: task.id });
    gate.resolve();
    const { aborted, reason } = await seen.promise;
    expect(aborted).toBe(true);
    expect(String(reason)).toContain('canceled');
    await service.idle();
  });
});

describe('a blocking SendMessage', () => {
  it('returns the task as its settling commit left it, even when the agent goes on afterwards', async () => {
    const after = deferred();
    const { service } = serviceWith(async (ctx) => {
      await ctx.inputRequired('which one?');
      after.resolve();
    });
    const task = await send(service, 'start');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await after.promise;
    await service.idle();
  });

  it('rejects when its call signal aborts before the task settles, and leaves the task running', async () => {
    const gated = gatedAgent();
    const { service, store } = serviceWith(gated.agent);
    const controller = new AbortController();
    const pending = send(service, 'slow', { signal: controller.signal });
    const taskId = await gated.started;
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(A2AError.is(error) && error.kind).toBe('Internal');
    gated.release();
    await service.idle();
    expect((await store.get(taskId))?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('hands out immutable tasks: the result cannot change what GetTask returns', async () => {
    const { service } = serviceWith(async (ctx) => ctx.complete('ok'));
    const task = await send(service, 'go');
    expect(() => (task.status as { state: string }).state = 'TASK_STATE_FAILED').toThrow(TypeError);
    expect(() => task.history!.push(task.history![0]!)).toThrow(TypeError);
    const again = await service.unary('GetTask', { id: task.id });
    expect(again.status.state).toBe('TASK_STATE_COMPLETED');
    expect(again.history).toHaveLength(1);
  });
});
