import * as grpc from '@grpc/grpc-js';
import type { CallContext, StreamEvent, TaskService } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { describe, expect, it, vi } from 'vitest';
import { grpcTransport } from '../src/client.js';
import { addA2AService } from '../src/service.js';
import { closeAfterTest, connect, referenceService, serve } from './helpers.js';

const user = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

/** Records the context of every call the service gets, so a test can wait on the server's own call signal. */
function recordContexts(service: TaskService): CallContext[] {
  const seen: CallContext[] = [];
  for (const name of ['unary', 'stream'] as const) {
    const original = service[name].bind(service) as (...args: unknown[]) => Promise<unknown>;
    vi.spyOn(service, name).mockImplementation(((method: never, params: unknown, context: CallContext) => {
      seen.push(context);
      return original(method, params, context);
    }) as never);
  }
  return seen;
}

/** Resolves when the server side of a call has ended (its signal aborted). */
function serverCallEnded(context: CallContext | undefined): Promise<void> {
  const signal = context!.signal!;
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function startSlow(client: ReturnType<typeof connect>, text: string): Promise<string> {
  const sent = await client.unary('SendMessage', { ...user(text), configuration: { returnImmediately: true } });
  return 'task' in sent ? sent.task.id : '';
}

describe('streams', () => {
  it('carry every event in order with Taskwire sequence numbers, and resume after one', async () => {
    const { url } = await serve(referenceService());
    const client = connect(url);
    const events: StreamEvent[] = [];
    for await (const event of client.stream('SendStreamingMessage', user('slow 3 0'))) events.push(event);
    const sequences = events.map((e) => e.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    const taskId = 'task' in events[0]!.response ? events[0]!.response.task.id : '';
    const resumed: StreamEvent[] = [];
    for await (const event of client.stream('SubscribeToTask', { id: taskId, afterSequence: events[2]!.sequence })) resumed.push(event);
    expect(resumed).toEqual(events.slice(3));
  });

  it('a client abort ends its stream quietly; the server stops writing; the task carries on', async () => {
    const service = referenceService();
    const contexts = recordContexts(service);
    const { url } = await serve(service);
    const client = connect(url);
    const id = await startSlow(client, 'slow 3 20');
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    for await (const event of client.stream('SubscribeToTask', { id }, { signal: controller.signal })) {
      seen.push(event);
      controller.abort();
    }
    expect(seen).toHaveLength(1);
    await serverCallEnded(contexts.at(-1));
    await service.idle();
    expect((await client.unary('GetTask', { id })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a stream deadline fails the client with DEADLINE_EXCEEDED and ends the server call, not the task', async () => {
    const service = referenceService();
    const contexts = recordContexts(service);
    const { url } = await serve(service);
    const client = connect(url);
    const id = await startSlow(client, 'slow 1000 5');
    const error = await (async () => {
      for await (const _ of client.stream('SubscribeToTask', { id }, { timeoutMs: 50 }));
    })().catch((e: unknown) => e);
    expect(A2AError.is(error) && error.metadata).toEqual({ grpcStatus: 'DEADLINE_EXCEEDED' });
    await serverCallEnded(contexts.at(-1));
    expect((await client.unary('GetTask', { id })).status.state).toBe('TASK_STATE_WORKING');
    expect((await client.unary('CancelTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('a blocking SendMessage past its deadline fails the call but leaves the task running', async () => {
    const service = referenceService();
    const contexts = recordContexts(service);
    const { url } = await serve(service);
    const client = connect(url);
    await expect(client.unary('SendMessage', user('slow 1000 5'), { timeoutMs: 50 })).rejects.toMatchObject({
      metadata: { grpcStatus: 'DEADLINE_EXCEEDED' },
    });
    await serverCallEnded(contexts.at(-1));
    const { tasks } = await client.unary('ListTasks', {});
    expect(tasks[0]?.status.state).toBe('TASK_STATE_WORKING');
    await client.unary('CancelTask', { id: tasks[0]!.id });
  });

  it('a unary call aborted by the caller rejects with the signal reason', async () => {
    const { url } = await serve(referenceService());
    const controller = new AbortController();
    const call = connect(url).unary('SendMessage', user('quote please'), { signal: controller.signal });
    controller.abort(new Error('changed my mind'));
    await expect(call).rejects.toThrow('changed my mind');
  });
});

describe('mounting', () => {
  it('adds lf.a2a.v1.A2AService to an existing grpc.Server next to other services', async () => {
    const server = new grpc.Server();
    const ping: grpc.ServiceDefinition = {
      Ping: {
        path: '/test.Ping/Ping',
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    };
    server.addService(ping, { Ping: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, call.request) });
    addA2AService(server, referenceService());
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    closeAfterTest(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
    const url = `127.0.0.1:${port}`;
    expect(await connect(url).unary('SendMessage', user('echo mounted'))).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
    const raw = new grpc.Client(url, grpc.credentials.createInsecure());
    closeAfterTest(() => raw.close());
    const echoed = await new Promise<Buffer>((resolve, reject) =>
      raw.makeUnaryRequest('/test.Ping/Ping', (b: Buffer) => b, (b: Buffer) => b, Buffer.from('hi'), (e, v) => (e ? reject(e) : resolve(v!))),
    );
    expect(echoed.toString()).toBe('hi');
  });

  it('a client pointed at nothing fails with an Internal error that says to check the url', async () => {
    const { url, close } = await serve(referenceService());
    await close(0);
    const client = grpcTransport({ url: `grpc://${url}` });
    closeAfterTest(() => client.close());
    await expect(client.unary('ListTasks', {})).rejects.toMatchObject({ kind: 'Internal', message: expect.stringContaining('check the url') });
  });
});
