import type { Message, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus } from '@a2a-js/sdk/server';
import { AgentEvent, RequestContext, ServerCallContext } from '@a2a-js/sdk/server';
import type { StreamEvent, Task as TwTask } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { CancellableAgentExecutor } from './fixtures/sample-agents.js';
import type { TaskwireServed } from './servers.js';
import { card, serveOnTaskwire } from './servers.js';

const user = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...extra } });
const textOf = (m: Message | undefined) => m?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';
const say = (ctx: RequestContext, text: string): Message => ({
  messageId: crypto.randomUUID(),
  taskId: ctx.taskId,
  contextId: ctx.contextId,
  role: Role.ROLE_AGENT,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** What the booking executor saw of each call. */
interface Seen {
  readonly isRequestContext: boolean;
  readonly isCallContext: boolean;
  readonly task: Task | undefined;
  readonly user: { isAuthenticated: boolean; userName: string } | undefined;
  readonly requestedExtensions: readonly string[] | undefined;
  readonly referenceTasks: readonly string[];
  readonly userText: string;
}

/** Asks which day (input-required); on the follow-up turn books it (artifact, completed). Records what it was given. */
class BookingExecutor implements AgentExecutor {
  readonly seen: Seen[] = [];

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    this.seen.push({
      isRequestContext: ctx instanceof RequestContext,
      isCallContext: ctx.context instanceof ServerCallContext,
      task: ctx.task,
      user: ctx.context.user,
      requestedExtensions: ctx.context.requestedExtensions,
      referenceTasks: (ctx.referenceTasks ?? []).map((t) => t.id),
      userText: textOf(ctx.userMessage),
    });
    const status = (state: TaskState, text: string) =>
      bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message: say(ctx, text), timestamp: new Date().toISOString() }, metadata: undefined }));
    bus.publish(
      AgentEvent.task(
        ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined },
      ),
    );
    if (!ctx.task) return status(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which day?');
    const day = textOf(ctx.userMessage);
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId: ctx.taskId,
        contextId: ctx.contextId,
        artifact: { artifactId: 'booking', name: 'booking', description: '', parts: [{ content: { $case: 'text', value: `Booked for ${day}` }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED, 'booked');
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

/** The task of a SendMessage result (these executors always make one). */
function taskOf(result: { task?: TwTask } | { message?: unknown }): TwTask {
  if (!('task' in result) || !result.task) throw new Error('expected a task');
  return result.task;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('an a2a-js executor on Taskwire: cancels and turns over any transport', () => {
  const opened: TaskwireServed[] = [];
  afterEach(async () => {
    for (const served of opened.splice(0)) await served.close();
  });

  it("a cancel over gRPC reaches the cancellable sample's cancelTask while its stream runs over JSON-RPC", async () => {
    const executor = new CancellableAgentExecutor(250);
    // What the executor is told and what it publishes, seen from outside it.
    const cancels: string[] = [];
    const published: string[] = [];
    const cancelTask = executor.cancelTask;
    executor.cancelTask = (taskId: string) => (cancels.push(taskId), cancelTask(taskId));
    const execute = executor.execute.bind(executor);
    executor.execute = (ctx, bus) => {
      bus.on('event', (e) => published.push(e.kind === 'statusUpdate' ? `${TaskState[e.data.status!.state]} ${textOf(e.data.status?.message)}`.trim() : e.kind));
      return execute(ctx, bus);
    };
    const served = await serveOnTaskwire(executor, card('Cancellable Agent'));
    opened.push(served);
    const streaming = await served.client('JSONRPC');
    const canceling = await served.client('GRPC');
    const events: StreamEvent[] = [];
    let canceled: TwTask | undefined;
    for await (const event of streaming.sendStreamingMessage(user('count to five'))) {
      events.push(event);
      const response = event.response;
      if ('statusUpdate' in response && response.statusUpdate.status.state === 'TASK_STATE_WORKING' && !canceled) {
        canceled = await canceling.cancelTask({ id: response.statusUpdate.taskId });
      }
    }
    // cancelTask was called with the task, and the executor stopped at its next step, saying so.
    const taskId = (events[0]!.response as { task: { id: string } }).task.id;
    expect(cancels).toEqual([taskId]);
    expect(published).toEqual(['task', 'TASK_STATE_WORKING', expect.stringMatching(/^TASK_STATE_CANCELED Task cancelled by user at step [1-5]\/5\.$/)]);
    // Its own canceled status is the one the cancel answers with, the stream ends with and the task keeps, as on a2a-js.
    const said = { state: 'TASK_STATE_CANCELED', message: { role: 'ROLE_AGENT', parts: [{ text: expect.stringMatching(/^Task cancelled by user at step [1-5]\/5\.$/) }] } };
    expect(canceled?.status).toMatchObject(said);
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { status: said } });
    expect((await canceling.getTask({ id: taskId })).status).toMatchObject(said);
  });

  it('ends the run once the cancel grace has passed even when the executor never stops, so it cannot hold up a shutdown', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const stuck: AgentExecutor = {
      async execute(ctx, bus) {
        bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
        started();
        await new Promise(() => undefined); // never returns, whatever cancelTask does
      },
      async cancelTask() {},
    };
    const served = await serveOnTaskwire(stuck, card('Stuck'), { adapter: { cancelGraceMs: 100 } });
    opened.push(served);
    const client = await served.client('JSONRPC');
    const sent = taskOf(await client.sendMessage({ ...user('hang'), configuration: { returnImmediately: true } }));
    await running;
    expect((await client.cancelTask({ id: sent.id })).status.state).toBe('TASK_STATE_CANCELED');
    await served.service.idle();
  });

  it('runs a follow-up turn over another transport, with the task, the caller and a2a-js classes for instanceof', async () => {
    const executor = new BookingExecutor();
    const served = await serveOnTaskwire(executor, card('Booking'), { adapter: { RequestContext, ServerCallContext } });
    opened.push(served);
    const first = await (await served.client('HTTP+JSON')).sendMessage(user('book a table', { extensions: ['https://example.com/ext/v1'] }));
    const task = taskOf(first);
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which day?' }] } } });
    const events = await collect((await served.client('GRPC')).sendStreamingMessage(user('Friday', { taskId: task.id, contextId: task.contextId, referenceTaskIds: [task.id] })));
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'booked' }] } } } });
    const done = await (await served.client('JSONRPC')).getTask({ id: task.id });
    expect(done.artifacts).toEqual([{ artifactId: 'booking', name: 'booking', parts: [{ text: 'Booked for Friday', mediaType: 'text/plain' }] }]);

    const [turn1, turn2] = executor.seen;
    expect(turn1).toMatchObject({ isRequestContext: true, isCallContext: true, task: undefined, user: { isAuthenticated: false }, requestedExtensions: ['https://example.com/ext/v1'], userText: 'book a table' });
    expect(turn2).toMatchObject({ isRequestContext: true, task: { id: task.id, status: { state: TaskState.TASK_STATE_INPUT_REQUIRED } }, referenceTasks: [task.id], userText: 'Friday' });
    expect(turn2!.task!.history.map(textOf)).toEqual(['book a table', 'Which day?', 'Friday']);
  });

  it('gives the executor the caller as an authenticated a2a-js user', async () => {
    const executor = new BookingExecutor();
    const agent = (await import('../src/index.js')).fromA2AExecutor(executor);
    // The agent context's principal becomes the user: call the agent the way the service does, with a principal.
    const { TaskService, createMemoryTaskStore } = await import('@taskwire/core');
    const service = new TaskService({ store: createMemoryTaskStore(), agent, card: card('Booking') });
    await service.unary('SendMessage', user('book'), { principal: { id: 'alice' } });
    expect(executor.seen.at(-1)!.user).toEqual({ isAuthenticated: true, userName: 'alice' });
    await service.close();
  });
});
