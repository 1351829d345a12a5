import type { AgentCard, SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { ClientFactory } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { describe, expect, it } from 'vitest';
import { grpcInterface } from '../src/serve.js';
import { referenceService, serve } from './helpers.js';

// The official @a2a-js/sdk gRPC client drives a Taskwire gRPC server: every
// operation it offers, in its own types, and the A2A errors it knows.

async function officialClient(): Promise<Client> {
  const { url } = await serve(referenceService());
  const card = referenceAgentCard([grpcInterface(url)]);
  // The SDK's card type is its generated proto type; our card is the same data in ProtoJSON shape.
  const factory = new ClientFactory({ transports: [new GrpcTransportFactory()] });
  return factory.createFromAgentCard({ ...card, securitySchemes: {}, securityRequirements: [], signatures: [] } as unknown as AgentCard);
}

function send(text: string, extra: Partial<SendMessageRequest['message'] & object> = {}, returnImmediately = false): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
      ...extra,
    },
    configuration: returnImmediately
      ? { acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined, returnImmediately: true }
      : undefined,
    metadata: undefined,
  };
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

const stateOf = (r: StreamResponse | undefined) =>
  r?.payload?.$case === 'task' ? r.payload.value.status?.state : r?.payload?.$case === 'statusUpdate' ? r.payload.value.status?.state : undefined;

async function failure(call: Promise<unknown> | (() => Promise<unknown>)): Promise<Error & { status?: number }> {
  try {
    await (typeof call === 'function' ? call() : call);
  } catch (error) {
    return error as Error & { status?: number };
  }
  throw new Error('expected the call to fail');
}

describe('@a2a-js/sdk gRPC client against a Taskwire gRPC server', () => {
  it('sends, gets and lists', async () => {
    const client = await officialClient();
    const task = await client.sendMessage(send('echo interop', { contextId: 'ctx-interop' }));
    if (!('status' in task)) throw new Error('expected a task');
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const reply = task.status?.message?.parts[0]?.content;
    expect(reply).toEqual({ $case: 'text', value: 'interop' });
    expect(typeof task.status?.timestamp).toBe('string');
    const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
    expect(got.id).toBe(task.id);
    expect(got.history.map((m) => m.role)).toEqual([Role.ROLE_USER]);
    expect(got.status?.message?.role).toBe(Role.ROLE_AGENT);
    const list = await client.listTasks({
      tenant: '',
      contextId: 'ctx-interop',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: undefined,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: undefined,
    });
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(list.totalSize).toBe(1);
  });

  it('streams every event in order and ends at the terminal state', async () => {
    const client = await officialClient();
    const events = await collect(client.sendMessageStream(send('slow 3 0')));
    expect(events[0]?.payload?.$case).toBe('task');
    const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    const progress = events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.metadata?.progress] : [])).filter(Boolean);
    expect(progress).toEqual([1, 2, 3].map((current) => ({ current, total: 3 })));
    expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('subscribes to a running task and cancels one', async () => {
    const client = await officialClient();
    const running = await client.sendMessage(send('slow 3 20', {}, true));
    if (!('status' in running)) throw new Error('expected a task');
    const events = await collect(client.resubscribeTask({ tenant: '', id: running.id }));
    expect(events[0]?.payload?.$case === 'task' && events[0].payload.value.id).toBe(running.id);
    expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
    const long = await client.sendMessage(send('slow 1000 5', {}, true));
    if (!('status' in long)) throw new Error('expected a task');
    const canceled = await client.cancelTask({ tenant: '', id: long.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('sees the A2A errors as the SDK error classes, from the ErrorInfo', async () => {
    const client = await officialClient();
    const notFound = await failure(client.getTask({ tenant: '', id: 'nope', historyLength: undefined }));
    expect([notFound.name, notFound.status]).toEqual(['TaskNotFoundError', 5]);
    const done = await client.sendMessage(send('echo done'));
    if (!('status' in done)) throw new Error('expected a task');
    const notCancelable = await failure(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }));
    expect([notCancelable.name, notCancelable.status]).toEqual(['TaskNotCancelableError', 9]);
    const terminal = await failure(() => collect(client.resubscribeTask({ tenant: '', id: done.id })));
    expect([terminal.name, terminal.status]).toEqual(['UnsupportedOperationError', 9]);
    const toTerminal = await failure(client.sendMessage(send('echo again', { taskId: done.id })));
    expect(toTerminal.name).toBe('UnsupportedOperationError');
    const invalid = await failure(client.sendMessage({ ...send('x'), message: { ...send('x').message!, parts: [] } }));
    expect(invalid.status).toBe(3);
    expect(invalid.message).toContain('message.parts');
  });
});
