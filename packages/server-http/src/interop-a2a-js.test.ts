import type { StreamResponse, Task } from '@a2a-js/sdk';
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { startServer } from './test-kit.js';

/**
 * The official @a2a-js/sdk client drives our server over both bindings it
 * speaks, choosing the interface from our agent card.
 */
describe.each(['JSONRPC', 'HTTP+JSON'] as const)('the @a2a-js/sdk client over %s', (binding) => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startServer();
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(server.url);
  });
  afterAll(async () => {
    await server.close();
  });

  const request = (text: string, extra: Record<string, unknown> = {}) =>
    SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, ...extra });
  const collect = async (events: AsyncIterable<StreamResponse>) => {
    const out: StreamResponse[] = [];
    for await (const event of events) out.push(event);
    return out;
  };
  const finalState = (events: StreamResponse[]) => {
    const last = events.at(-1)?.payload;
    return last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
  };
  const error = async (call: Promise<unknown>) => call.then(() => undefined, (e: unknown) => e);

  it('picks the interface from the card', () => {
    expect(client.transport.protocolName).toBe(binding);
  });

  it('sends a message and gets the completed task', async () => {
    const result = (await client.sendMessage(request('echo interop'))) as Task;
    expect(result.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(result.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'interop' });
  });

  it('streams a message: the task first, artifact chunks, then completed', async () => {
    const events = await collect(client.sendMessageStream(request('slow 3 0')));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(events.filter((e) => e.payload?.$case === 'artifactUpdate')).toHaveLength(3);
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('gets and lists tasks', async () => {
    const sent = (await client.sendMessage(request('echo listed', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo listed' }], contextId: `ctx-${binding}` } }))) as Task;
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id, historyLength: 1 }));
    expect(got.id).toBe(sent.id);
    expect(got.history).toHaveLength(1);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: `ctx-${binding}`, status: 'TASK_STATE_COMPLETED', includeArtifacts: true }));
    expect(listed.tasks.map((t) => t.id)).toEqual([sent.id]);
  });

  it('cancels an input-required task', async () => {
    const waiting = (await client.sendMessage(request('quote'))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: waiting.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('resubscribes to a running task and follows it to the end', async () => {
    const running = (await client.sendMessage(request('slow 3 20', { configuration: { returnImmediately: true } }))) as Task;
    const events = await collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: running.id })));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(finalState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('maps our errors to its error classes', async () => {
    expect(await error(client.getTask(GetTaskRequest.fromJSON({ id: 'no-such-task' })))).toBeInstanceOf(TaskNotFoundError);
    const done = (await client.sendMessage(request('echo done'))) as Task;
    expect(await error(client.cancelTask(CancelTaskRequest.fromJSON({ id: done.id })))).toBeInstanceOf(TaskNotCancelableError);
    expect(await error(collect(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: done.id }))))).toBeInstanceOf(UnsupportedOperationError);
  });
});
