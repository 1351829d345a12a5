import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { call, collect, rpc, startServer, userMessage } from './test-kit.js';

let server: TestServer;
beforeEach(async () => {
  server = await startServer({ maxBodyBytes: 64 * 1024 });
});
afterEach(async () => {
  await server.close();
});

const send = (text: string, extra = {}) => call(server.rpcUrl, 'SendMessage', { message: userMessage(text, extra) });

describe('JSON-RPC 2.0 binding', () => {
  it('serves every unary operation of the v1.0 method table by name', async () => {
    const sent = await send('quote');
    expect(sent).toMatchObject({ jsonrpc: '2.0', id: 1, result: { task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } } });
    const id = sent.result.task.id;
    expect((await call(server.rpcUrl, 'GetTask', { id })).result.id).toBe(id);
    expect((await call(server.rpcUrl, 'ListTasks', {})).result.tasks.map((t: { id: string }) => t.id)).toEqual([id]);
    expect((await call(server.rpcUrl, 'CancelTask', { id })).result.status.state).toBe('TASK_STATE_CANCELED');
    for (const method of ['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']) {
      expect((await call(server.rpcUrl, method, { taskId: id, id: 'c1', url: 'https://example.com/hook' })).error.code).toBe(-32003);
    }
    expect((await call(server.rpcUrl, 'GetExtendedAgentCard', {})).error.code).toBe(-32004);
  });

  it('answers SendStreamingMessage as text/event-stream, each event wrapped as {jsonrpc, id, result} with id: its sequence', async () => {
    const response = await rpc(server.rpcUrl, { jsonrpc: '2.0', id: 'stream-1', method: 'SendStreamingMessage', params: { message: userMessage('slow 3 0') } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collect(response);
    for (const event of events) expect(event.data).toMatchObject({ jsonrpc: '2.0', id: 'stream-1', result: expect.any(Object) });
    expect(events[0]!.data.result.task).toBeDefined();
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const ids = events.map((e) => e.id);
    expect(ids.every(Number.isInteger)).toBe(true);
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
  });

  it('answers a batch with one response per request, in order, and none for notifications', async () => {
    const response = await rpc(server.rpcUrl, [
      { jsonrpc: '2.0', id: 'a', method: 'SendMessage', params: { message: userMessage('echo batched') } },
      { jsonrpc: '2.0', method: 'SendMessage', params: { message: userMessage('echo silently') } },
      { jsonrpc: '2.0', id: 'b', method: 'GetTask', params: { id: 'missing' } },
      { jsonrpc: '2.0', id: 'c', method: 'SendStreamingMessage', params: { message: userMessage('echo no') } },
      42,
    ]);
    const body = await response.json();
    expect(body.map((r: { id: unknown }) => r.id)).toEqual(['a', 'b', 'c', null]);
    expect(body[0].result.task.status.message.parts[0].text).toBe('batched');
    expect(body[1].error.code).toBe(-32001);
    expect(body[2].error).toMatchObject({ code: -32600, message: expect.stringContaining('cannot be part of a batch') });
    expect(body[3].error.code).toBe(-32600);
    const listed = await call(server.rpcUrl, 'ListTasks', {});
    expect(listed.result.tasks.map((t: any) => t.status.message.parts[0].text).sort()).toEqual(['batched', 'silently']);
  });

  it('answers a notification (and a batch of only notifications) with no body, after it took effect', async () => {
    const single = await rpc(server.rpcUrl, { jsonrpc: '2.0', method: 'SendMessage', params: { message: userMessage('echo one') } });
    expect(single.status).toBe(204);
    expect(await single.text()).toBe('');
    const batch = await rpc(server.rpcUrl, [
      { jsonrpc: '2.0', method: 'SendMessage', params: { message: userMessage('echo two') } },
      { jsonrpc: '2.0', method: 'NoSuchMethod' },
    ]);
    expect(batch.status).toBe(204);
    expect(await batch.text()).toBe('');
    expect((await call(server.rpcUrl, 'ListTasks', {})).result.tasks).toHaveLength(2);
  });

  it('reports malformed JSON as -32700 with id null, and keeps serving', async () => {
    const body = await (await rpc(server.rpcUrl, '{"jsonrpc": "2.0", "method": ')).json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(body.error.data[0]).toMatchObject({ reason: 'PARSE_ERROR', domain: 'a2a-protocol.org' });
    expect((await send('echo still here')).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('reports invalid request objects as -32600', async () => {
    const cases = [
      { id: 1, method: 'GetTask', params: { id: 'x' } },
      { jsonrpc: '1.0', id: 2, method: 'GetTask' },
      { jsonrpc: '2.0', id: 3, method: 7 },
      { jsonrpc: '2.0', id: { nested: true }, method: 'GetTask' },
      [],
    ];
    for (const body of cases) {
      const answer = await (await rpc(server.rpcUrl, body)).json();
      expect(answer.error.code).toBe(-32600);
    }
  });

  it('reports an unknown method as -32601 naming the methods that exist', async () => {
    const answer = await call(server.rpcUrl, 'tasks/explode', {});
    expect(answer.error.code).toBe(-32601);
    expect(answer.error.message).toContain('SendMessage');
  });

  it('reports invalid params as -32602 with the path of the bad field, in the message and a BadRequest detail', async () => {
    const answer = await call(server.rpcUrl, 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 1 }] } });
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain('message.parts[0]');
    const badRequest = answer.error.data.find((d: any) => d['@type'].endsWith('google.rpc.BadRequest'));
    expect(badRequest.fieldViolations[0].field).toMatch(/^message\.parts\[0\]/);
    expect((await call(server.rpcUrl, 'GetTask', ['positional'])).error.code).toBe(-32602);
  });

  it('leaves the task a bad request names untouched', async () => {
    const task = (await send('quote')).result.task;
    const bad = { messageId: 'm-bad', role: 'ROLE_USER', parts: [], taskId: task.id };
    expect((await call(server.rpcUrl, 'SendMessage', { message: bad })).error.code).toBe(-32602);
    expect((await (await rpc(server.rpcUrl, `{"jsonrpc":"2.0","id":1,"method":"CancelTask","params":{"id":"${task.id}"`)).json()).error.code).toBe(-32700);
    expect((await call(server.rpcUrl, 'GetTask', { id: task.id })).result).toEqual(task);
  });

  it('refuses a body that is not JSON with 415 ContentTypeNotSupported (-32005)', async () => {
    const response = await rpc(server.rpcUrl, 'hello', { 'content-type': 'text/plain' });
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe(-32005);
  });

  it('refuses a body over the size limit with 413 and leaves stored tasks untouched', async () => {
    const task = (await send('quote')).result.task;
    const huge = { jsonrpc: '2.0', id: 9, method: 'SendMessage', params: { message: userMessage('x'.repeat(70 * 1024), { taskId: task.id }) } };
    const response = await rpc(server.rpcUrl, huge);
    expect(response.status).toBe(413);
    expect((await response.json()).error.data[0].reason).toBe('PAYLOAD_TOO_LARGE');
    const after = await call(server.rpcUrl, 'GetTask', { id: task.id });
    expect(after.result).toEqual(task);
  });

  it('answers only POST (405 with Allow)', async () => {
    const response = await fetch(server.rpcUrl);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('JSON-RPC versions', () => {
  it('selects the version from A2A-Version or ?A2A-Version=, and refuses an unsupported one with -32009', async () => {
    const task = (await send('echo v')).result.task;
    for (const version of ['9.1', '1']) expect((await call(server.rpcUrl, 'GetTask', { id: task.id }, { 'a2a-version': version })).error.code).toBe(-32009);
    expect((await call(server.rpcUrl, 'GetTask', { id: task.id }, { 'a2a-version': '1.0.3' })).result.id).toBe(task.id);
    const byQuery = await (
      await fetch(`${server.rpcUrl}?A2A-Version=1.0`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }),
      })
    ).json();
    expect(byQuery.result.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('answers a request without A2A-Version (0.3) and v0.3 method names in v0.3 shapes', async () => {
    const task = (await send('echo old')).result.task;
    const v03 = await call(server.rpcUrl, 'tasks/get', { id: task.id }, { 'a2a-version': '' });
    expect(v03.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    const noHeader = await call(server.rpcUrl, 'GetTask', { id: task.id }, { 'a2a-version': '' });
    expect(noHeader.result.status.state).toBe('completed');
  });
});
