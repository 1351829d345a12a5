// A2A 1.1 (the dev-1.1 draft) on a service with protocol.v1_1, over JSON-RPC, HTTP+JSON and gRPC: the task generation,
// and push secrets redacted by default.
import { httpJsonTransport, jsonRpcTransport } from '@taskwire/client';
import type { Agent, CallOptions, StreamEvent, Task, Transport } from '@taskwire/core';
import { createMemoryPushConfigStore, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { serveGrpc } from '@taskwire/server-grpc';
import { grpcTransport } from '@taskwire/server-grpc/client';
import { serveA2A } from '@taskwire/server-http';
import { wsTransport } from '@taskwire/client/ws';
import { serveWebSocket } from '@taskwire/server-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUITE_CARD, userMessage } from './harness.js';
import { PUSH_SUITE_CARD } from './requirements/push.js';

/** Works, makes an artifact and asks for input; each later message does it again. */
const agent: Agent = async (ctx) => {
  await ctx.working();
  await ctx.artifact({ artifactId: 'a', parts: [{ text: ctx.text }] });
  await ctx.inputRequired('more?');
};

const push = { store: createMemoryPushConfigStore() };
const service = new TaskService({ store: createMemoryTaskStore(), agent, card: PUSH_SUITE_CARD, push, protocol: { v1_1: true, maxLongPollMs: 300 } });
const v10 = new TaskService({ store: createMemoryTaskStore(), agent, card: SUITE_CARD });
let close: (() => Promise<void>)[] = [];
let clients: Record<string, (s: 'next' | 'v10') => Transport> = {};
let restUrl = '';
let wsClient: Transport;

beforeAll(async () => {
  const [http, http10, grpc, grpc10, ws] = await Promise.all([serveA2A({ service }), serveA2A({ service: v10 }), serveGrpc({ service }), serveGrpc({ service: v10 }), serveWebSocket({ service })]);
  wsClient = wsTransport({ url: ws.url, headers: { 'a2a-version': '1.1' } });
  restUrl = `${http.url}/a2a/rest`;
  const grpcs = [grpcTransport({ url: grpc.url }), grpcTransport({ url: grpc10.url })];
  clients = {
    'JSON-RPC': (s) => jsonRpcTransport({ url: `${(s === 'next' ? http : http10).url}/a2a/jsonrpc` }),
    'HTTP+JSON': (s) => httpJsonTransport({ url: `${(s === 'next' ? http : http10).url}/a2a/rest` }),
    gRPC: (s) => grpcs[s === 'next' ? 0 : 1]!,
  };
  close = [() => http.close(), () => http10.close(), async () => grpcs.forEach((t) => void t.close?.()), () => grpc.close(), () => grpc10.close(), () => wsClient.close!(), () => ws.close()];
});
afterAll(async () => {
  for (const stop of close) await stop();
});

const V11: CallOptions = { headers: { 'a2a-version': '1.1' } };
const taskOf = (result: object): Task => ('task' in result && result.task ? (result.task as Task) : expect.fail('expected a task'));
const generationOf = (e: StreamEvent) => {
  const r = e.response;
  return 'task' in r ? r.task.generation : 'statusUpdate' in r ? r.statusUpdate.generation : 'artifactUpdate' in r ? r.artifactUpdate.generation : undefined;
};
async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe.each(['JSON-RPC', 'HTTP+JSON', 'gRPC'])('A2A 1.1 generation over %s', (binding) => {
  it('is 1 at creation and one more per status or artifact change, on answers and stream events; a 1.0 call sees none', async () => {
    const client = clients[binding]!('next');
    const events = await collect(client.stream('SendStreamingMessage', { message: userMessage('one') }, V11));
    // The task (1), working (2), the artifact (3), input-required (4).
    expect(events.map(generationOf)).toEqual([1, 2, 3, 4]);
    const id = taskOf(events[0]!.response).id;
    expect((await client.unary('GetTask', { id }, V11)).generation).toBe(4);
    const next = taskOf(await client.unary('SendMessage', { message: userMessage('two', { taskId: id }) }, V11));
    expect(next.generation).toBe(8);
    expect((await client.unary('GetTask', { id })).generation).toBeUndefined();
    const plain = taskOf(await clients[binding]!('v10').unary('SendMessage', { message: userMessage('one') }));
    expect(plain.generation).toBeUndefined();
    await expect(clients[binding]!('v10').unary('GetTask', { id: plain.id }, V11)).rejects.toMatchObject({ kind: 'VersionNotSupported' });
  });

  it('GetTask with currentGeneration answers at once when the task is past it, else waits until it moves (or the server stops waiting)', async () => {
    const client = clients[binding]!('next');
    const task = taskOf(await client.unary('SendMessage', { message: userMessage('one') }, V11));
    expect((await client.unary('GetTask', { id: task.id, currentGeneration: 3 }, V11)).generation).toBe(4);
    const poll = client.unary('GetTask', { id: task.id, currentGeneration: '4' }, V11);
    // The poll waits on the task's events; then a message moves the generation.
    await until(() => service.engine.hub.count(task.id) > 0, 'the poll to wait on the task');
    await client.unary('SendMessage', { message: userMessage('two', { taskId: task.id }), configuration: { returnImmediately: true } }, V11);
    expect((await poll).generation).toBeGreaterThan(4);
    await service.idle();
    // Nothing moves: the poll ends after maxLongPollMs with the task as it is.
    expect((await client.unary('GetTask', { id: task.id, currentGeneration: 8 }, V11)).generation).toBe(8);
  });

  it('SendMessage with ifGenerationMatch is refused with TaskGenerationMismatch (-32010) unless it matches; ignored for a new task', async () => {
    const client = clients[binding]!('next');
    const task = taskOf(await client.unary('SendMessage', { message: userMessage('one'), configuration: { ifGenerationMatch: 99 } }, V11));
    const stale = { message: userMessage('two', { taskId: task.id }), configuration: { ifGenerationMatch: 3 } };
    const refused = await client.unary('SendMessage', stale, V11).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'TaskGenerationMismatch', code: -32010, metadata: { taskId: task.id, currentGeneration: '4' } });
    expect((await client.unary('GetTask', { id: task.id }, V11)).generation).toBe(4);
    const fresh = { message: userMessage('two', { taskId: task.id }), configuration: { ifGenerationMatch: '4' } };
    expect(taskOf(await client.unary('SendMessage', fresh, V11)).generation).toBe(8);
  });

  it('ListTasks on a 1.1 call gives each task its generation, the one GetTask gives; a 1.0 call none', async () => {
    const client = clients[binding]!('next');
    const contextId = crypto.randomUUID();
    const first = taskOf(await client.unary('SendMessage', { message: userMessage('one', { contextId }) }, V11));
    await client.unary('SendMessage', { message: userMessage('two', { taskId: first.id }) }, V11);
    await client.unary('SendMessage', { message: userMessage('three', { contextId }) }, V11);
    const listed = (await client.unary('ListTasks', { contextId }, V11)).tasks;
    const got = await Promise.all(listed.map(async (t) => [t.id, (await client.unary('GetTask', { id: t.id }, V11)).generation]));
    expect(listed.map((t) => [t.id, t.generation])).toEqual(got);
    expect(got.map(([, generation]) => generation).sort()).toEqual([4, 8]);
    expect((await client.unary('ListTasks', { contextId })).tasks.map((t) => t.generation)).toEqual([undefined, undefined]);
  });

  it('answers push configs without their secrets on 1.1 calls (Get and List), with them on 1.0 calls', async () => {
    const client = clients[binding]!('next');
    const task = taskOf(await client.unary('SendMessage', { message: userMessage('one') }, V11));
    const config = { taskId: task.id, url: 'https://hooks.example.com/a2a', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } };
    const created = await client.unary('CreateTaskPushNotificationConfig', config, V11);
    const shown = { id: created.id, taskId: task.id, url: config.url, authentication: { scheme: 'Bearer' } };
    expect(await client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: created.id! }, V11)).toEqual(shown);
    expect((await client.unary('ListTaskPushNotificationConfigs', { taskId: task.id }, V11)).configs).toEqual([shown]);
    expect(await client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: created.id! })).toEqual({ ...config, id: created.id });
  });
});

it('WebSocket: a connection that asks for A2A 1.1 gets generations on answers, events and listed tasks', async () => {
  const events = await collect(wsClient.stream('SendStreamingMessage', { message: userMessage('one') }));
  expect(events.map(generationOf)).toEqual([1, 2, 3, 4]);
  expect((await wsClient.unary('GetTask', { id: taskOf(events[0]!.response).id, currentGeneration: 3 })).generation).toBe(4);
  const listed = (await wsClient.unary('ListTasks', { contextId: taskOf(events[0]!.response).contextId })).tasks;
  expect(listed.map((t) => t.generation)).toEqual([4]);
});

it('HTTP+JSON answers a generation mismatch with 409 Conflict, as the dev-1.1 text says (PR 1810 described 412)', async () => {
  const task = taskOf(await clients['HTTP+JSON']!('next').unary('SendMessage', { message: userMessage('one') }, V11));
  const body = JSON.stringify({ message: userMessage('two', { taskId: task.id }), configuration: { ifGenerationMatch: '1' } });
  const answer = await fetch(`${restUrl}/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.1' }, body });
  expect(answer.status).toBe(409);
  expect((await answer.json()).error.details[0].reason).toBe('TASK_GENERATION_MISMATCH');
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > 10_000) throw new Error(`gave up waiting for ${what}`);
  }
}
