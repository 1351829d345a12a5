import type { CallOptions, Message, ParamsOf, StreamEvent, StreamMethodName, Task, Transport } from '@taskwire/core';
import { A2AError, inMemoryTransport } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { referenceService, serviceTransport } from '../test/support.js';
import { serveEverywhere, type Served } from '../test/serve-reference.js';
import { A2AClient } from './client.js';
import { createClient } from './create-client.js';
import { WaitTimeoutError } from './poll-task.js';

const user = (text: string, extra: Partial<Message> = {}): { message: Message } => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra },
});

async function start(client: A2AClient, text: string): Promise<Task> {
  const sent = await client.sendMessage({ ...user(text), configuration: { returnImmediately: true } });
  if (!('task' in sent)) throw new Error('expected a task');
  return sent.task;
}

/** Wraps `inner` to count the streams that are open right now (a closed subscription leaves the count). */
function countingStreams(inner: Transport): Transport & { open: number } {
  const counted = {
    open: 0,
    unary: inner.unary.bind(inner),
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      counted.open++;
      try {
        yield* inner.stream(method, params, options);
      } finally {
        counted.open--;
      }
    },
  };
  return counted as Transport & { open: number };
}

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('waitForTask on an agent that streams: SubscribeToTask, then one GetTask', () => {
  it('over JSON-RPC: a slow task is seen completing with two calls, the task read whole at the end', async () => {
    const service = referenceService();
    const served = await serveEverywhere(service);
    servers.push(served);
    const methods: string[] = [];
    const client = await createClient(served.url, { preferred: ['JSONRPC'], interceptors: [{ before: (call) => void methods.push(call.method) }] });
    const task = await start(client, 'slow 20 5');
    methods.length = 0;
    const done = await client.waitForTask(task.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts?.[0]?.parts).toHaveLength(20);
    expect(methods).toEqual(['SubscribeToTask', 'GetTask']);
    await client.close();
  });

  it('resolves at input-required and closes its subscription; until "terminal" follows the task through it', async () => {
    const service = referenceService();
    const transport = countingStreams(serviceTransport(service));
    const client = new A2AClient(transport, { card: service.card });
    const asked = await start(client, 'provide a sunset quote');
    const settled = await client.waitForTask(asked.id);
    expect(settled.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(transport.open).toBe(0);

    const terminal = client.waitForTask(asked.id, { until: 'terminal' });
    await client.sendMessage({ ...user('insta', { taskId: asked.id, contextId: asked.contextId }), configuration: { returnImmediately: true } });
    const done = await terminal;
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts?.[0]?.artifactId).toBe('quote');
    expect(transport.open).toBe(0);
  });

  it('resumes a dropped subscription after the last event, without polling', async () => {
    const service = referenceService();
    const transport = serviceTransport(service, { cutStreams: [3] });
    const client = new A2AClient(transport, { card: service.card, random: () => 0 });
    const task = await start(client, 'slow 10 5');
    transport.calls.length = 0;
    expect((await client.waitForTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(transport.calls.map((c) => c.method)).toEqual(['SubscribeToTask', 'SubscribeToTask', 'GetTask']);
    expect(transport.calls[1]!.params).toMatchObject({ id: task.id, afterSequence: expect.any(Number) });
  });

  it('a task that has already ended: the refused subscription is followed by one read', async () => {
    const service = referenceService();
    const transport = serviceTransport(service);
    const client = new A2AClient(transport, { card: service.card });
    const task = await start(client, 'echo done');
    await client.waitForTask(task.id);
    transport.calls.length = 0;
    expect((await client.waitForTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(transport.calls.map((c) => c.method)).toEqual(['SubscribeToTask', 'GetTask']);
  });

  it('times out after backoff.maxTotalMs while following, with the last state seen', async () => {
    const service = referenceService();
    const client = new A2AClient(serviceTransport(service), { card: service.card });
    const task = await start(client, 'slow 1000 20');
    const waiting = client.waitForTask(task.id, { backoff: { maxTotalMs: 100 } });
    await expect(waiting).rejects.toBeInstanceOf(WaitTimeoutError);
    await expect(waiting).rejects.toMatchObject({ lastTask: { status: { state: 'TASK_STATE_WORKING' } } });
    await client.cancelTask({ id: task.id });
  });
});

describe('waitForTask falls back to polling', () => {
  it('when the stream keeps dropping', async () => {
    const service = referenceService();
    const transport = serviceTransport(service, { cutStreams: [0, 0, 0, 0] });
    const client = new A2AClient(transport, { card: service.card, random: () => 0, resume: { attempts: 1 }, poll: { initialMs: 5 } });
    const task = await start(client, 'slow 5 5');
    transport.calls.length = 0;
    expect((await client.waitForTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    const methods = transport.calls.map((c) => c.method);
    expect(methods.slice(0, 2)).toEqual(['SubscribeToTask', 'SubscribeToTask']);
    expect(methods.slice(2).every((m) => m === 'GetTask')).toBe(true);
    expect(methods.length).toBeGreaterThan(2);
  });

  it('when the agent does not serve SubscribeToTask', async () => {
    const service = referenceService();
    const inner = inMemoryTransport(service);
    const methods: string[] = [];
    const transport: Transport = {
      unary: (method, params, options) => (methods.push(method), inner.unary(method, params, options)),
      async *stream(method) {
        methods.push(method);
        throw new A2AError('MethodNotFound', 'no streams here');
      },
    };
    const client = new A2AClient(transport, { card: service.card, poll: { initialMs: 5 } });
    const task = await start(client, 'slow 3 5');
    methods.length = 0;
    expect((await client.waitForTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(methods[0]).toBe('SubscribeToTask');
    expect(methods.slice(1).every((m) => m === 'GetTask')).toBe(true);
  });

  it('and only polls when the card says the agent does not stream', async () => {
    const service = referenceService(false);
    const transport = serviceTransport(service);
    const client = new A2AClient(transport, { card: service.card, poll: { initialMs: 5 } });
    const task = await start(client, 'slow 3 5');
    transport.calls.length = 0;
    expect((await client.waitForTask(task.id)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(new Set(transport.calls.map((c) => c.method))).toEqual(new Set(['GetTask']));
  });
});
