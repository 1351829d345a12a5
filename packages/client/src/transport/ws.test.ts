import type { Message, Part, StreamEvent, Task } from '@taskwire/core';
import { A2AError, apiKeyAuth, createMemoryTaskStore, TaskService, WS_PROTOCOL_BINDING } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { WebSocketServerHandle } from '@taskwire/server-ws';
import { serveWebSocket, wsInterface } from '@taskwire/server-ws';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { WebSocketClass, WsTransport } from './ws.js';
import { wsTransport } from './ws.js';
import { isTransient } from '../transient.js';
import { createServer } from 'node:net';

/** A port nothing listens on (taken from the OS, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

const user = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });
const textOf = (parts: readonly Part[] | undefined) => parts?.map((p) => ('text' in p ? p.text : '')).join('') ?? '';
const stateOf = (event: StreamEvent) =>
  'task' in event.response ? event.response.task.status.state : 'statusUpdate' in event.response ? event.response.statusUpdate.status.state : undefined;

/** A `ws` WebSocket class that remembers every socket it opens (to count connections and to cut them). */
function recordingSockets() {
  const sockets: WebSocket[] = [];
  const Recording = class extends WebSocket {
    constructor(url: string, options?: object) {
      super(url, options);
      sockets.push(this);
    }
  };
  return { sockets, WebSocket: Recording as unknown as WebSocketClass };
}

/**
 * Streams `text` with SendStreamingMessage and cuts the connection after the
 * third event: tRPC reconnects and the stream resumes. Checks that it did,
 * with no gap and no duplicate, and returns every event.
 */
async function streamCutOnce(client: WsTransport, sockets: WebSocket[], text: string): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of client.stream('SendStreamingMessage', { message: user(text) })) {
    events.push(event);
    if (events.length === 3) sockets[0]!.terminate();
  }
  expect(sockets).toHaveLength(2);
  const sequences = events.map((e) => e.sequence);
  expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
  return events;
}

async function sendTask(transport: WsTransport, text: string, extra: Partial<Message> = {}): Promise<Task> {
  const result = await transport.unary('SendMessage', { message: user(text, extra) });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

async function failure(call: Promise<unknown> | AsyncIterable<unknown>): Promise<A2AError> {
  try {
    if (Symbol.asyncIterator in call) for await (const _ of call);
    else await call;
  } catch (error) {
    if (A2AError.is(error)) return error;
    throw new Error(`expected an A2AError, got ${String(error)}`);
  }
  throw new Error('expected the call to fail');
}

describe('wsTransport', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  const transports: WsTransport[] = [];
  const open = (options: Omit<Parameters<typeof wsTransport>[0], 'url'> = {}) => {
    const transport = wsTransport({ url: server.url, ...options });
    transports.push(transport);
    return transport;
  };

  beforeEach(async () => {
    const card = referenceAgentCard([wsInterface('ws://127.0.0.1/a2a/ws')]);
    service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
    server = await serveWebSocket({ service, auth: { authenticate: apiKeyAuth({ 'key-alice': 'alice' }), required: false } });
  });
  afterEach(async () => {
    for (const transport of transports.splice(0)) await transport.close();
    await server.close();
    await service.close();
  });

  it('runs the seed 000 conversation over one WebSocket connection', async () => {
    const { sockets, WebSocket } = recordingSockets();
    const client = open({ WebSocket });
    const a = await sendTask(client, 'provide a sunset quote');
    expect(a.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOf(a.status.message?.parts)).toBe('Do you want Instagram, Pinterest, or General?');

    const a2 = await sendTask(client, 'insta', { taskId: a.id, contextId: a.contextId });
    expect([a2.id, a2.status.state]).toEqual([a.id, 'TASK_STATE_COMPLETED']);
    const quote = textOf(a2.artifacts?.find((x) => x.name === 'quote')?.parts);
    expect(quote.length).toBeGreaterThan(0);

    const reuse = await failure(sendTask(client, 'make it shorter', { taskId: a.id }));
    expect([reuse.kind, reuse.code]).toEqual(['UnsupportedOperation', -32004]);

    const b = await sendTask(client, 'make it shorter', { contextId: a.contextId, referenceTaskIds: [a.id] });
    expect(b.id).not.toBe(a.id);
    expect([b.contextId, b.status.state]).toEqual([a.contextId, 'TASK_STATE_COMPLETED']);
    const shorter = textOf(b.artifacts?.find((x) => x.name === 'quote')?.parts);
    expect(shorter.length).toBeGreaterThan(0);
    expect(shorter.length).toBeLessThan(quote.length);

    const listed = await client.unary('ListTasks', { contextId: a.contextId });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect(sockets).toHaveLength(1);
    expect(server.connections).toBe(1);
  });

  it('rebuilds the server A2A error, with its code, reason and metadata', async () => {
    const error = await failure(open().unary('GetTask', { id: 'missing' }));
    expect([error.kind, error.code, error.reason, error.metadata]).toEqual(['TaskNotFound', -32001, 'TASK_NOT_FOUND', { taskId: 'missing' }]);
    const invalid = await failure(open().unary('ListTasks', { pageSize: 500 }));
    expect([invalid.code, invalid.message.includes('pageSize')]).toEqual([-32602, true]);
  });

  it('resumes a SubscribeToTask after a dropped connection with no gap and no duplicate', async () => {
    const { sockets, WebSocket } = recordingSockets();
    const client = open({ WebSocket });
    const sent = await client.unary('SendMessage', { message: user('slow 1000 5'), configuration: { returnImmediately: true } });
    if (!('task' in sent)) throw new Error('expected a task');
    const task = sent.task;
    const events: StreamEvent[] = [];
    for await (const event of client.stream('SubscribeToTask', { id: task.id })) {
      events.push(event);
      if (events.length === 4) sockets[0]!.terminate(); // the network drops; tRPC reconnects and resubscribes
      if (events.length === 12) await client.unary('CancelTask', { id: task.id });
    }
    expect(sockets).toHaveLength(2);
    const sequences = events.map((e) => e.sequence);
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_CANCELED');
    const chunks = events.flatMap((e) => ('artifactUpdate' in e.response ? [Number(/chunk (\d+)/.exec(textOf(e.response.artifactUpdate.artifact.parts))![1])] : []));
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    expect(chunks).toEqual(chunks.map((_, i) => chunks[0]! + i));
  });

  it('resumes a SendStreamingMessage as a SubscribeToTask of its task: the message is not sent again', async () => {
    const { sockets, WebSocket } = recordingSockets();
    const client = open({ WebSocket });
    const events = await streamCutOnce(client, sockets, 'slow 12 15');
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    expect(events.filter((e) => 'artifactUpdate' in e.response)).toHaveLength(12);
    const listed = await client.unary('ListTasks', {});
    expect(listed.tasks).toHaveLength(1);
    expect(listed.tasks[0]!.history?.filter((m) => m.role === 'ROLE_USER')).toHaveLength(1);
  });

  it('ends a resumed SendStreamingMessage where the turn ends (input-required), though a SubscribeToTask would go on', async () => {
    const card = referenceAgentCard([wsInterface('ws://127.0.0.1/a2a/ws')]);
    const asking = new TaskService({
      store: createMemoryTaskStore(),
      card,
      agent: async (ctx) => {
        for (let i = 1; i <= 6; i++) {
          await new Promise((resolve) => setTimeout(resolve, 10));
          await ctx.working(`step ${i}`);
        }
        await ctx.inputRequired('which one?');
      },
    });
    const own = await serveWebSocket({ service: asking });
    try {
      const { sockets, WebSocket } = recordingSockets();
      const client = wsTransport({ url: own.url, WebSocket });
      transports.push(client);
      const events = await streamCutOnce(client, sockets, 'go');
      expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(events).toHaveLength(8);
    } finally {
      await own.close();
      await asking.close();
    }
  });

  it('ends a stream on break without canceling its task', async () => {
    const client = open();
    let taskId = '';
    for await (const event of client.stream('SendStreamingMessage', { message: user('slow 3 10') })) {
      if ('task' in event.response) taskId = event.response.task.id;
      break;
    }
    await service.idle();
    expect((await client.unary('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
    expect(service.engine.hub.count(taskId)).toBe(0);
  });

  it('authenticates with connection params (the browser way) and headers alike', async () => {
    const byParams = open({ connectionParams: { 'x-api-key': 'key-alice' } });
    const byHeader = open({ headers: { 'x-api-key': 'key-alice' } });
    const task = await sendTask(byParams, 'echo mine');
    expect((await byHeader.unary('GetTask', { id: task.id })).id).toBe(task.id);
    const anonymous = await failure(open().unary('GetTask', { id: task.id }));
    expect(anonymous.code).toBe(-32001);
  });

  it('fails every call of a refused connection with the server error, and does not reconnect', async () => {
    const { sockets, WebSocket } = recordingSockets();
    const client = open({ WebSocket, headers: { 'x-api-key': 'wrong' } });
    const first = await failure(client.unary('ListTasks', {}));
    expect([first.kind, first.code, first.message]).toEqual(['Unauthenticated', -32030, 'The API key is not valid; send a valid key in x-api-key']);
    const stream = await failure(client.stream('SendStreamingMessage', { message: user('echo no') }));
    expect(stream.kind).toBe('Unauthenticated');
    expect(sockets).toHaveLength(1);
  });

  it('refuses per-call headers (credentials go with the connection), and honours timeoutMs', async () => {
    const client = open();
    const headers = await failure(client.unary('ListTasks', {}, { headers: { 'x-api-key': 'k' } }));
    expect(headers.message).toContain('pass headers or connectionParams to wsTransport()');
    const slow = await failure(client.unary('SendMessage', { message: user('slow 1000 5') }, { timeoutMs: 50 }));
    expect(slow.message).toContain('timed out');
  });

  it('fails a call with a TransientError when no connection opens within connectTimeoutMs, and connects to an agent that comes up in time', async () => {
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}/a2a/ws`;
    const down = wsTransport({ url, connectTimeoutMs: 100, retryDelayMs: () => 20 });
    transports.push(down);
    const unary = await failure(down.unary('ListTasks', {}));
    const stream = await failure(down.stream('SendStreamingMessage', { message: user('echo no') }));
    for (const error of [unary, stream]) {
      expect(isTransient(error)).toBe(true);
      expect(error.message).toContain(`No WebSocket connection to ${url} opened within 100 ms`);
    }

    const late = wsTransport({ url, connectTimeoutMs: 10_000, retryDelayMs: () => 20 });
    transports.push(late);
    const call = late.unary('ListTasks', {});
    const upLate = await serveWebSocket({ service, port });
    try {
      expect((await call).tasks).toEqual([]);
    } finally {
      await late.close();
      await upLate.close();
    }
  });

  it('re-exports the binding URI that createClient registers it for', async () => {
    const module = await import('../ws.js');
    expect(module.WS_PROTOCOL_BINDING).toBe(WS_PROTOCOL_BINDING);
    expect(wsInterface(server.url).protocolBinding).toBe(module.WS_PROTOCOL_BINDING);
  });
});
