import { describe, expect, it } from 'vitest';
import type { Agent, AgentContext } from '../agent/agent.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import { onAbort, RunHandle } from './run-context.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const send = { message: { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'go' }] } };

/** Whether the handle has made its AbortController (private: read only here, to see that listening did not make one). */
const madeSignal = (handle: RunHandle) => (handle as unknown as { controller: AbortController | undefined }).controller !== undefined;

describe('RunHandle.onAbort', () => {
  it('tells each listener, once and in order, with the reason, and makes no AbortSignal for it', () => {
    const handle = new RunHandle();
    const heard: string[] = [];
    expect(handle.onAbort((reason) => heard.push(`a:${String(reason)}`))).toBe(true);
    expect(handle.onAbort((reason) => heard.push(`b:${String(reason)}`))).toBe(true);
    expect(madeSignal(handle)).toBe(false);
    handle.abort('first');
    handle.abort('second');
    expect(heard).toEqual(['a:first', 'b:first']);
    expect(madeSignal(handle)).toBe(false);
    // The signal read afterwards is aborted with the same reason.
    expect(handle.signal.aborted).toBe(true);
    expect(handle.signal.reason).toBe('first');
  });

  it('calls nothing and says false once the run has aborted, as a listener on an aborted signal is never called', () => {
    const handle = new RunHandle();
    handle.abort('gone');
    let called = false;
    expect(handle.onAbort(() => (called = true))).toBe(false);
    expect(called).toBe(false);
  });

  it('tells its listeners after those of a signal read before the abort', () => {
    const handle = new RunHandle();
    const heard: string[] = [];
    handle.onAbort(() => heard.push('listener'));
    handle.signal.addEventListener('abort', () => heard.push('signal'));
    handle.abort('stop');
    expect(heard).toEqual(['signal', 'listener']);
  });
});

describe('onAbort(ctx, listener)', () => {
  it("tells an agent that never reads its signal of its task's cancel", async () => {
    const told = deferred<unknown>();
    const started = deferred<string>();
    let heard: boolean | undefined;
    const agent: Agent = async (ctx) => {
      heard = onAbort(ctx, (reason) => told.resolve(reason));
      await ctx.working();
      started.resolve(ctx.task.id);
      await told.promise;
      await ctx.fail('canceled by the test');
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent });
    await service.unary('SendMessage', { ...send, configuration: { returnImmediately: true } });
    const taskId = await started.promise;
    const canceled = await service.unary('CancelTask', { id: taskId });
    expect(heard).toBe(true);
    expect(String(await told.promise)).toContain('cancel');
    expect((canceled as { status: { state: string } }).status.state).toBe('TASK_STATE_CANCELED');
    await service.close();
  });

  it('tells a running agent that the service is closing, with ServiceClosing as the reason', async () => {
    const told = deferred<unknown>();
    const started = deferred<void>();
    const agent: Agent = async (ctx) => {
      onAbort(ctx, (reason) => told.resolve(reason));
      await ctx.working();
      started.resolve();
      await told.promise;
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent });
    await service.unary('SendMessage', { ...send, configuration: { returnImmediately: true } });
    await started.promise;
    await service.close();
    expect((await told.promise as Error).name).toBe('ServiceClosing');
  });

  it("listens on the signal of a context that is not the service's own (a wrapper)", () => {
    const controller = new AbortController();
    const wrapped = { signal: controller.signal } as AgentContext;
    const heard: unknown[] = [];
    expect(onAbort(wrapped, (reason) => heard.push(reason))).toBe(true);
    controller.abort('wrapped');
    expect(heard).toEqual(['wrapped']);
    expect(onAbort(wrapped, (reason) => heard.push(reason))).toBe(false);
    expect(heard).toEqual(['wrapped']);
  });
});
