import type { TaskService } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WebSocketServerHandle } from './serve.js';
import { serveWebSocket } from './serve.js';
import type { Frame } from './test-kit.js';
import { RawSocket, referenceService, userMessage } from './test-kit.js';

const a2aCode = (frame: Frame) => (frame.error?.data.a2a as { code: number }).code;

describe('frames on one connection, spoken by hand', () => {
  let service: TaskService;
  let server: WebSocketServerHandle;
  let raw: RawSocket;

  beforeEach(async () => {
    service = referenceService();
    server = await serveWebSocket({ service, limits: { maxMessageBytes: 64 * 1024 } });
    raw = await RawSocket.open(server.url);
  });
  afterEach(async () => {
    raw.close();
    await server.close();
    await service.close();
  });

  it('answers malformed frames and bad calls with tRPC errors carrying the A2A code, and the stream in flight goes on', async () => {
    raw.send({ id: 1, method: 'subscription', params: { path: 'SendStreamingMessage', input: { message: userMessage('slow 5 10') } } });
    expect((await raw.answer(1)).result?.type).toBe('started');

    raw.send('{this is not json');
    const garbled = await raw.answer(null);
    expect([garbled.error?.data.code, a2aCode(garbled)]).toEqual(['PARSE_ERROR', -32700]);
    expect(garbled.error?.message).toContain('one JSON tRPC message');

    raw.socket.send(Buffer.from([0xde, 0xad, 0xbe, 0xef]), { binary: true });
    expect(a2aCode(await raw.answer(null))).toBe(-32700);

    raw.send({ id: 2, method: 'query', params: { path: 'NoSuchOperation', input: {} } });
    const unknown = await raw.answer(2);
    expect([unknown.error?.data.code, a2aCode(unknown)]).toEqual(['NOT_FOUND', -32601]);

    raw.send({ id: 3, method: 'query', params: { path: 'SendMessage', input: { message: userMessage('echo x') } } });
    expect(a2aCode(await raw.answer(3))).toBe(-32601); // SendMessage is a mutation, not a query

    raw.send({ id: 4, method: 'mutation', params: { path: 'SendMessage', input: { message: { role: 'ROLE_USER', parts: [{ text: 'hi' }] } } } });
    const invalid = await raw.answer(4);
    expect([invalid.error?.data.code, a2aCode(invalid)]).toEqual(['BAD_REQUEST', -32602]);
    expect(invalid.error?.message).toContain('message.messageId');

    raw.send({ id: 5, method: 'mutation', params: { path: 'SendMessage', input: { message: userMessage('echo still here') } } });
    const echoed = (await raw.answer(5)).result?.data as { task: { status: { message: { parts: unknown[] } } } };
    expect(echoed.task.status.message.parts).toEqual([{ text: 'still here' }]);

    // The stream opened first delivers every event and ends at the terminal state.
    const states: string[] = [];
    for (;;) {
      const frame = await raw.answer(1);
      if (frame.result?.type === 'stopped') break;
      const data = (frame.result?.data as { data: { statusUpdate?: { status: { state: string } } } }).data;
      if (data.statusUpdate) states.push(data.statusUpdate.status.state);
    }
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(states.filter((s) => s === 'TASK_STATE_WORKING')).toHaveLength(5);
  });

  it('refuses a duplicate subscription id without touching the first one', async () => {
    const input = { message: userMessage('slow 3 10') };
    raw.send({ id: 7, method: 'subscription', params: { path: 'SendStreamingMessage', input } });
    expect((await raw.answer(7)).result?.type).toBe('started');
    raw.send({ id: 7, method: 'subscription', params: { path: 'SendStreamingMessage', input: { message: userMessage('slow 3 10') } } });
    const duplicate = await raw.next((f) => f.id === 7 && f.error !== undefined);
    expect(a2aCode(duplicate)).toBe(-32600);
    let last: Frame;
    do last = await raw.answer(7);
    while (last.result?.type !== 'stopped');
    expect(await service.unary('ListTasks', {})).toMatchObject({ totalSize: 1 });
  });

  it('stops a subscription on subscription.stop, without canceling its task', async () => {
    raw.send({ id: 1, method: 'subscription', params: { path: 'SendStreamingMessage', input: { message: userMessage('slow 3 10') } } });
    const first = await raw.next((f) => f.id === 1 && f.result?.type === 'data');
    raw.send({ id: 1, method: 'subscription.stop' });
    expect((await raw.next((f) => f.id === 1 && f.result?.type === 'stopped')).result?.type).toBe('stopped');
    const taskId = ((first.result?.data as { data: { task: { id: string } } }).data.task.id);
    await service.idle();
    expect((await service.unary('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
    expect(service.engine.hub.count(taskId)).toBe(0);
  });

  it('closes a connection that sends a frame over maxMessageBytes (1009), as WebSocket requires', async () => {
    raw.send({ id: 1, method: 'mutation', params: { path: 'SendMessage', input: { message: userMessage('x'.repeat(70 * 1024)) } } });
    expect((await raw.closed).code).toBe(1009);
  });
});
