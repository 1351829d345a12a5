import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { StreamEvent } from '../calls.js';
import type { TaskServiceOptions } from './service-options.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const send = { message: { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'go' }] } };
const card = { name: 'Grace', description: 'Cancels itself', version: '1', supportedInterfaces: [], capabilities: { streaming: true }, defaultInputModes: [], defaultOutputModes: [], skills: [] };

/** An agent that works until its signal aborts, then does `onAbort` (its own ending of the task, or nothing). */
function abortable(onAbort: (ctx: Parameters<Agent>[0]) => Promise<void>): { agent: Agent; started: Promise<string> } {
  const started = deferred<string>();
  const agent: Agent = async (ctx) => {
    await ctx.working();
    started.resolve(ctx.task.id);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    await onAbort(ctx);
  };
  return { agent, started: started.promise };
}

/** Streams a message, cancels its task once it works, and gives the stream's events and the cancel's answer (or error). */
async function cancelWhileStreaming(agent: Agent, options: Partial<TaskServiceOptions> = {}) {
  const service = new TaskService({ store: createMemoryTaskStore(), agent, card, ...options });
  const events: StreamEvent[] = [];
  const stream = await service.stream('SendStreamingMessage', send);
  let answer: Promise<unknown> | undefined;
  for await (const event of stream) {
    events.push(event);
    const response = event.response;
    if (!answer && 'statusUpdate' in response && response.statusUpdate.status.state === 'TASK_STATE_WORKING') {
      answer = service.unary('CancelTask', { id: response.statusUpdate.taskId }).catch((error: unknown) => error);
    }
  }
  const result = await answer;
  await service.close();
  return { events, result };
}

const last = (events: StreamEvent[]) => events.at(-1)!.response;

describe('CancelTask with a cancel grace', () => {
  it("lets the agent end its task with its own canceled status: the stream and the cancel's answer carry its message", async () => {
    const { agent } = abortable((ctx) => ctx.emit({ kind: 'status', state: 'TASK_STATE_CANCELED', message: 'stopped at your request, step 3' }));
    const { events, result } = await cancelWhileStreaming(Object.assign(agent, { cancelGraceMs: 30_000 }));
    expect(last(events)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED', message: { role: 'ROLE_AGENT', parts: [{ text: 'stopped at your request, step 3' }] } } } });
    expect(result).toMatchObject({ status: { state: 'TASK_STATE_CANCELED', message: { parts: [{ text: 'stopped at your request, step 3' }] } } });
  });

  it('without a grace the task is canceled at once and what the agent says after the abort is refused', async () => {
    let refused: unknown;
    const { agent } = abortable((ctx) => ctx.emit({ kind: 'status', state: 'TASK_STATE_CANCELED', message: 'too late' }).catch((error: unknown) => void (refused = error)));
    const { events, result } = await cancelWhileStreaming(agent);
    expect(last(events)).toEqual({ statusUpdate: expect.objectContaining({ status: expect.not.objectContaining({ message: expect.anything() }) }) });
    expect(result).toMatchObject({ status: { state: 'TASK_STATE_CANCELED' } });
    expect(refused).toBeInstanceOf(A2AError);
  });

  it("the service's option sets the grace for any agent; an agent that stops without ending its task is canceled by the service", async () => {
    const { agent } = abortable(async () => undefined);
    const { events, result } = await cancelWhileStreaming(agent, { cancelGraceMs: 30_000 });
    expect(last(events)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } });
    expect(result).toMatchObject({ status: { state: 'TASK_STATE_CANCELED' } });
  });

  it('an agent that finishes otherwise within the grace makes the cancel TaskNotCancelable, as the task stays completed', async () => {
    const { agent } = abortable((ctx) => ctx.complete('finished anyway'));
    const { events, result } = await cancelWhileStreaming(agent, { cancelGraceMs: 30_000 });
    expect(last(events)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(result).toMatchObject({ code: -32002 });
  });

  it('an agent that does not stop is canceled by the service once the grace has passed', async () => {
    const gate = deferred();
    const agent: Agent = async (ctx) => {
      await ctx.working();
      await gate.promise; // heeds no signal: it goes on until the test lets it end
    };
    const service = new TaskService({ store: createMemoryTaskStore(), agent, card, cancelGraceMs: 50 });
    const sent = await service.unary('SendMessage', { ...send, configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    await expect.poll(async () => (await service.unary('GetTask', { id })).status.state).toBe('TASK_STATE_WORKING');
    expect((await service.unary('CancelTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    gate.resolve();
    await service.close();
  });
});
