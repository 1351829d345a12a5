import type { Message, StreamResponse, Task } from '@a2a-js/sdk';
import { Role, SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Served } from './servers.js';
import { card, serveOnA2AJs, serveOnTaskwire } from './servers.js';

const part = (value: string) => ({ content: { $case: 'text' as const, value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const status = (ctx: RequestContext, state: TaskState) =>
  AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined });
const artifact = (ctx: RequestContext, text = 'x', append = false, lastChunk = true) =>
  AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, artifact: { artifactId: 'a', name: 'a', description: '', parts: [part(text)], metadata: undefined, extensions: [] }, append, lastChunk, metadata: undefined });
const task = (ctx: RequestContext): Task =>
  ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: undefined };
const reply = (ctx: RequestContext, text: string): Message => ({ messageId: crypto.randomUUID(), contextId: ctx.contextId, taskId: '', role: Role.ROLE_AGENT, parts: [part(text)], metadata: undefined, extensions: [], referenceTaskIds: [] });

/** One executor whose behaviour the first word of the message picks: the orderings a2a-js accepts and refuses. */
class OrderingsExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const word = ctx.userMessage.parts[0]?.content?.$case === 'text' ? ctx.userMessage.parts[0].content.value : '';
    // Updates with no Task event before them (an executor written for a server that made the task itself).
    if (word === 'status-first' || word === 'artifact-first') {
      bus.publish(word === 'status-first' ? status(ctx, TaskState.TASK_STATE_WORKING) : artifact(ctx));
      return bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
    }
    if (word === 'message') return bus.publish(AgentEvent.message(reply(ctx, 'just a message')));
    if (word === 'throw-early') throw new Error('broken before any event');
    bus.publish(AgentEvent.task(task(ctx)));
    bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
    if (word === 'second-task') bus.publish(AgentEvent.task(task(ctx)));
    if (word === 'throw-late') {
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('broken while working');
    }
    if (word === 'append-first') {
      // Every chunk marked append, the first one included (as Google ADK streams): the first one makes the artifact.
      bus.publish(artifact(ctx, 'x', true, false));
      bus.publish(artifact(ctx, 'y', true, true));
    } else bus.publish(artifact(ctx));
    bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
  }

  async cancelTask(): Promise<void> {}
}

const request = (text: string) => SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
const errorOf = (error: unknown) => ({ error: (error as Error).constructor.name, code: codeOf(error) });
/** The JSON-RPC code of an a2a-js client error (its class names the kind; the code is on it or in its message). */
const codeOf = (error: unknown): number | undefined => (error as { envelopeCode?: number }).envelopeCode ?? Number(/(-32\d{3})/.exec(String((error as Error).message))?.[1]);
const textOf = (m: Message | undefined) => m?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** What the a2a-js client got from a blocking send, without ids: an error class, or the answer. */
async function blocking(server: Served, text: string) {
  try {
    const result = await (await server.jsClient('JSONRPC')).sendMessage(request(text));
    if (!('status' in result)) return { message: textOf(result) };
    return { state: TaskState[result.status!.state], text: textOf(result.status?.message) };
  } catch (error) {
    return errorOf(error);
  }
}

/** What the a2a-js client got from a stream: the events (kind and state), then an error class if it ended with one. */
async function streamed(server: Served, text: string) {
  const seen: string[] = [];
  try {
    for await (const event of (await server.jsClient('JSONRPC')).sendMessageStream(request(text))) seen.push(line(event));
    return { seen };
  } catch (error) {
    return { seen, ...errorOf(error) };
  }
}
const line = (event: StreamResponse): string => {
  const p = event.payload!;
  if (p.$case === 'task') return `task ${TaskState[p.value.status!.state]}`;
  if (p.$case === 'statusUpdate') return `status ${TaskState[p.value.status!.state]} ${textOf(p.value.status?.message) ?? ''}`.trim();
  if (p.$case === 'artifactUpdate') return 'artifact';
  return `message ${textOf(p.value)}`;
};

describe('what the adapter does with each ordering, next to a2a-js 1.3.0 serving the same executor', () => {
  let onA2AJs: Served;
  let onTaskwire: Served;
  beforeAll(async () => {
    onA2AJs = await serveOnA2AJs(new OrderingsExecutor(), card('Orderings'));
    onTaskwire = await serveOnTaskwire(new OrderingsExecutor(), card('Orderings'));
  });
  afterAll(async () => {
    await onA2AJs?.close();
    await onTaskwire?.close();
  });

  const both = ['ok', 'message', 'status-first', 'artifact-first', 'throw-late', 'append-first'];

  it.each(both)('a blocking send of %s gets the same answer', async (word) => {
    const [theirs, ours] = await Promise.all([blocking(onA2AJs, word), blocking(onTaskwire, word)]);
    expect(ours).toEqual(theirs);
  });

  it.each([...both, 'second-task'])('a stream of %s gets the same events and error', async (word) => {
    const [theirs, ours] = await Promise.all([streamed(onA2AJs, word), streamed(onTaskwire, word)]);
    expect(ours).toEqual(theirs);
  });

  it('refuses a status-first run as a2a-js does: -32004 on a stream, -32603 on a blocking send', async () => {
    expect(await streamed(onTaskwire, 'status-first')).toMatchObject({ seen: [], code: -32004 });
    expect(await blocking(onTaskwire, 'status-first')).toMatchObject({ code: -32603 });
    expect(await streamed(onTaskwire, 'second-task')).toMatchObject({ seen: ['task TASK_STATE_SUBMITTED', 'status TASK_STATE_WORKING'], code: -32004 });
  });

  it('takes an append to an artifact the task does not have yet as its first chunk, as a2a-js does', async () => {
    const artifactsOf = async (server: Served) => {
      const result = await (await server.jsClient('JSONRPC')).sendMessage(request('append-first'));
      if (!('status' in result)) throw new Error('expected a task');
      return { state: TaskState[result.status!.state], artifacts: result.artifacts.map((a) => ({ id: a.artifactId, parts: a.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')) })) };
    };
    const [theirs, ours] = await Promise.all([artifactsOf(onA2AJs), artifactsOf(onTaskwire)]);
    expect(ours).toEqual({ state: 'TASK_STATE_COMPLETED', artifacts: [{ id: 'a', parts: ['x', 'y'] }] });
    expect(ours).toEqual(theirs);
  });

  it('fails a task whose executor throws with the error text (a stream shows the task as stored first)', async () => {
    const [theirs, ours] = await Promise.all([streamed(onA2AJs, 'throw-early'), streamed(onTaskwire, 'throw-early')]);
    expect(ours.seen[1]).toBe(theirs.seen[1]);
    expect(ours.seen[1]).toBe('status TASK_STATE_FAILED Agent execution error: broken before any event');
    expect(await blocking(onTaskwire, 'throw-early')).toEqual(await blocking(onA2AJs, 'throw-early'));
  });

  it('differs on a blocking send whose executor publishes a second Task: a2a-js takes it, Taskwire refuses it as on a stream', async () => {
    expect(await blocking(onA2AJs, 'second-task')).toEqual({ state: 'TASK_STATE_COMPLETED', text: undefined });
    expect(await blocking(onTaskwire, 'second-task')).toMatchObject({ code: -32004 });
  });
});
