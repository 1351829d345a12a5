import type { ParamsOf, ResultOf, TaskService } from '@taskwire/core';
import { METHOD_NAMES, METHODS } from '@taskwire/core';
import { TRPCClientError } from '@trpc/client';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { WS_PROTOCOL_BINDING, wsInterface } from './interface.js';
import type { A2ARouter } from './router.js';
import { createA2ARouter, isReadMethod } from './router.js';
import type { WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import { referenceService, typedClient, userMessage } from './test-kit.js';

describe('createA2ARouter', () => {
  it('has one procedure per operation of the method table: reads are queries, writes mutations, streams subscriptions', () => {
    const router = createA2ARouter(referenceService());
    const procedures = router._def.procedures as Record<string, { _def: { type: string } }>;
    expect(Object.keys(procedures).sort()).toEqual([...METHOD_NAMES].sort());
    for (const name of METHOD_NAMES) {
      const expected = METHODS[name].kind === 'stream' ? 'subscription' : METHODS[name].rest.verb === 'GET' ? 'query' : 'mutation';
      expect([name, procedures[name]!._def.type]).toEqual([name, expected]);
      // The router's type names reads Get*/List*: it must agree with the table.
      expect([name, isReadMethod(name)]).toEqual([name, METHODS[name].kind === 'unary' && /^(Get|List)[A-Z]/.test(name)]);
    }
  });

  it('types a tRPC client with the method table: params in, results and tracked stream responses out', () => {
    type Client = ReturnType<typeof typedClient>['client'];
    expectTypeOf<Parameters<Client['GetTask']['query']>[0]>().toEqualTypeOf<ParamsOf<'GetTask'>>();
    expectTypeOf<Awaited<ReturnType<Client['SendMessage']['mutate']>>>().toEqualTypeOf<ResultOf<'SendMessage'>>();
    expectTypeOf<Awaited<ReturnType<Client['ListTasks']['query']>>>().toEqualTypeOf<ResultOf<'ListTasks'>>();
    expectTypeOf<A2ARouter['_def']['_config']['$types']['ctx']['call']['principal']>().toEqualTypeOf<{ readonly id: string; readonly [claim: string]: unknown } | undefined>();
  });

  it('wsInterface names the endpoint with our protocolBinding URI', () => {
    expect(wsInterface('ws://127.0.0.1:1/a2a/ws')).toEqual({
      url: 'ws://127.0.0.1:1/a2a/ws',
      protocolBinding: WS_PROTOCOL_BINDING,
      protocolVersion: '1.0',
    });
    expect(WS_PROTOCOL_BINDING).toBe('https://taskwire.dev/bindings/trpc-ws/v1');
  });
});

describe('the A2A router over WebSocket, with a typed tRPC client', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  let trpc: ReturnType<typeof typedClient>;

  beforeEach(async () => {
    service = referenceService();
    server = await serveWebSocket({ service });
    trpc = typedClient(server.url);
  });
  afterEach(async () => {
    await trpc.close();
    await server.close();
    await service.close();
  });

  async function failure(call: Promise<unknown>): Promise<TRPCClientError<A2ARouter>> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof TRPCClientError)) throw new Error(`expected a TRPCClientError, got ${String(error)}`);
    return error as TRPCClientError<A2ARouter>;
  }

  it('answers SendMessage (a mutation) and GetTask (a query)', async () => {
    const sent = await trpc.client.SendMessage.mutate({ message: userMessage('echo hello') });
    if (!('task' in sent)) throw new Error('expected a task');
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(sent.task.status.message?.parts).toEqual([{ text: 'hello' }]);
    const read = await trpc.client.GetTask.query({ id: sent.task.id });
    expect(read).toEqual(sent.task);
  });

  it('sends a service error as a tRPC error whose data.a2a carries the A2A code, reason and ErrorInfo', async () => {
    const error = await failure(trpc.client.GetTask.query({ id: 'no-such-task' }));
    expect(error.data?.code).toBe('NOT_FOUND');
    expect(error.data?.httpStatus).toBe(404);
    expect(error.data?.a2a.code).toBe(-32001);
    expect(error.data?.a2a.reason).toBe('TASK_NOT_FOUND');
    expect(error.data?.a2a.details[0]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 'no-such-task' },
    });
    expect(error.message).toContain('no-such-task');
    expect(error.data).not.toHaveProperty('stack');
  });

  it('answers invalid input with InvalidParams (-32602, BAD_REQUEST) naming the field', async () => {
    const error = await failure(trpc.client.SendMessage.mutate({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [] } }));
    expect(error.data?.code).toBe('BAD_REQUEST');
    expect(error.data?.a2a.code).toBe(-32602);
    expect(error.message).toContain('message.parts');
    expect(error.data?.a2a.details[1]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.BadRequest' });
  });

  it('maps each A2A error to the tRPC code of its meaning (TaskNotCancelable is PRECONDITION_FAILED)', async () => {
    const sent = await trpc.client.SendMessage.mutate({ message: userMessage('echo done') });
    if (!('task' in sent)) throw new Error('expected a task');
    const error = await failure(trpc.client.CancelTask.mutate({ id: sent.task.id }));
    expect([error.data?.code, error.data?.a2a.code]).toEqual(['PRECONDITION_FAILED', -32002]);
  });

  it('refuses a SubscribeToTask whose lastEventId names another task (InvalidParams), and resumes when it names the same one', async () => {
    const tasks = [];
    for (const text of ['echo one', 'echo two']) {
      const sent = await trpc.client.SendMessage.mutate({ message: userMessage(text) });
      if (!('task' in sent)) throw new Error('expected a task');
      tasks.push(sent.task);
    }
    const [asked, other] = tasks as [(typeof tasks)[0], (typeof tasks)[0]];
    /** The first thing a resumed subscription of `asked` gets: an event or an error. */
    const firstOutcome = (lastEventId: string) =>
      new Promise<unknown>((resolve) => {
        const subscription = trpc.client.SubscribeToTask.subscribe(
          { id: asked.id, lastEventId },
          { onData: (event) => (subscription.unsubscribe(), resolve(event)), onError: resolve, onComplete: () => resolve('complete') },
        );
      });
    const refused = await failure(firstOutcome(`1:${other.id}`).then((outcome) => Promise.reject(outcome)));
    expect(refused.data?.a2a.code).toBe(-32602);
    expect(refused.message).toContain('lastEventId');
    // The same task's event id passes: the stream resumes after it (later events, if any, then the end; no error).
    const resumed = await firstOutcome(`0:${asked.id}`);
    expect(resumed).not.toBeInstanceOf(TRPCClientError);
    if (resumed !== 'complete') expect((resumed as { id: string }).id).toMatch(new RegExp(`^\\d+:${asked.id}$`));
  });

  it('streams tracked events with "<sequence>:<taskId>" ids, in order, ending at the terminal state', async () => {
    // Typed by the router: each event is { id, data: StreamResponse }.
    const events: { id: string; data: ResultOf<'SendStreamingMessage'> }[] = [];
    await new Promise<void>((resolve, reject) => {
      trpc.client.SendStreamingMessage.subscribe(
        { message: userMessage('slow 3 0') },
        { onData: (event) => events.push(event), onError: reject, onComplete: resolve },
      );
    });
    const first = events[0]!.data;
    if (!('task' in first)) throw new Error('expected the task first');
    const sequences = events.map((e) => Number(e.id.split(':')[0]));
    expect(events.map((e) => e.id)).toEqual(sequences.map((s) => `${s}:${first.task.id}`));
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    const last = events.at(-1)!.data;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
