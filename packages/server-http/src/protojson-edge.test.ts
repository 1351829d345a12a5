import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AHandler } from './handler.js';
import type { TestServer } from './test-kit.js';
import { CARD, call, startServer, userMessage } from './test-kit.js';

/** One server for the file: each test works in contexts of its own. */
let server: TestServer;
beforeAll(async () => void (server = await startServer()));
afterAll(() => server.close());

const V1 = { 'a2a-version': '1.0' } as const;
const REST_JSON = { ...V1, 'content-type': 'application/a2a+json' };
const get = (path: string) => fetch(`${server.restUrl}${path}`, { headers: V1 });
const post = (path: string, body: string | Uint8Array<ArrayBuffer>) => fetch(`${server.restUrl}${path}`, { method: 'POST', headers: REST_JSON, body });

/** `json` with `"@@"` replaced by `bad` bytes inside the string it stands in. */
function withBytes(json: string, bad: number[]): Uint8Array<ArrayBuffer> {
  const at = json.indexOf('@@');
  return new Uint8Array(Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from(bad), Buffer.from(json.slice(at + 2))]));
}

describe('ProtoJSON at the HTTP edge', () => {
  it('HTTP+JSON query parameters take proto field names and enum numbers, and refuse a field under both names', async () => {
    const task = (await call(server.rpcUrl, 'SendMessage', { message: userMessage('echo q', { contextId: 'ctx-q' }) })).result.task;
    expect((await (await get(`/tasks/${task.id}?history_length=0`)).json()).history).toBeUndefined();
    const listed = await (await get('/tasks?context_id=ctx-q&status=3&page_size=5')).json();
    expect(listed.tasks.map((t: { id: string }) => t.id)).toEqual([task.id]);
    expect(listed.pageSize).toBe(5);
    expect((await (await get('/tasks?contextId=ctx-q&status=TASK_STATE_WORKING')).json()).tasks).toEqual([]);
    const twice = await get(`/tasks/${task.id}?historyLength=0&history_length=0`);
    expect(twice.status).toBe(400);
    expect((await twice.json()).error.message).toContain('historyLength: given twice');
  });

  it('HTTP+JSON bodies take proto field names; a path parameter wins over the same field in the body, under either name', async () => {
    const sent = await post('/message:send', JSON.stringify({ message: { message_id: 'm-1', role: 1, parts: [{ text: 'echo body' }], context_id: 'ctx-b' }, configuration: { history_length: 0 } }));
    const task = (await sent.json()).task;
    expect([task.contextId, task.history, task.status.state]).toEqual(['ctx-b', undefined, 'TASK_STATE_COMPLETED']);
    // The path's taskId replaces the body's task_id (not "both names"); params are checked first, so this answer means they passed.
    const push = await post(`/tasks/${task.id}/pushNotificationConfigs`, JSON.stringify({ task_id: 'another', url: 'https://example.com/hook' }));
    expect((await push.json()).error.details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
  });

  it('answers in camelCase with enum names whatever the request used', async () => {
    const text = await (await post('/message:send', JSON.stringify({ message: { message_id: 'm-2', role: 'ROLE_USER', parts: [{ text: 'echo names' }] } }))).text();
    expect(text).toContain('"contextId"');
    expect(text).toContain('"TASK_STATE_COMPLETED"');
    expect(text).toContain('"ROLE_AGENT"');
    expect(text).not.toMatch(/"[a-z]+_[a-z_]+"\s*:/);
  });
});

describe('bodies that are not UTF-8', () => {
  const BAD = [
    [0xff],
    [0xc3, 0x28],
    [0xed, 0xa0, 0x80],
    [0xe2, 0x82],
  ];

  it('are a JSON-RPC parse error (-32700, id null), not text with U+FFFD', async () => {
    for (const bad of BAD) {
      const body = withBytes(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage('echo @@', { contextId: 'ctx-utf8' }) } }), bad);
      const answer = await (await fetch(server.rpcUrl, { method: 'POST', headers: { ...V1, 'content-type': 'application/json' }, body })).json();
      expect([bad, answer.id, answer.error.code]).toEqual([bad, null, -32700]);
      expect(answer.error.message).toContain('UTF-8');
    }
    expect((await call(server.rpcUrl, 'ListTasks', { contextId: 'ctx-utf8' })).result.tasks).toEqual([]);
  });

  it('are a 400 PARSE_ERROR on HTTP+JSON', async () => {
    for (const bad of BAD) {
      const answer = await post('/message:send', withBytes(JSON.stringify({ message: userMessage('echo @@', { contextId: 'ctx-utf8' }) }), bad));
      expect((await call(server.rpcUrl, 'ListTasks', { contextId: 'ctx-utf8' })).result.tasks).toEqual([]);
      expect(answer.status).toBe(400);
      expect((await answer.json()).error.details[0].reason).toBe('PARSE_ERROR');
    }
  });

  it('are refused the same way by the fetch handler, while valid multi-byte text goes through', async () => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
    const handler = createA2AHandler({ service });
    try {
      const request = (body: Uint8Array<ArrayBuffer>) =>
        new Request('http://agent.test/a2a/jsonrpc', { method: 'POST', headers: { ...V1, 'content-type': 'application/json' }, body });
      const envelope = (text: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(text) } });
      const refused = await (await handler.fetch(request(withBytes(envelope('echo @@'), [0xc0, 0xaf])))).json();
      expect(refused.error.code).toBe(-32700);
      const accepted = await (await handler.fetch(request(new TextEncoder().encode(envelope('echo é 🦄'))))).json();
      expect(accepted.result.task.status.message.parts).toEqual([{ text: 'é 🦄' }]);
    } finally {
      await service.close();
    }
  });

  it('refuse a whole JSON-RPC batch, not just the item they are in', async () => {
    const body = withBytes(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, { jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: '@@' } }]), [0x80]);
    const answer = await (await fetch(server.rpcUrl, { method: 'POST', headers: { ...V1, 'content-type': 'application/json' }, body })).json();
    expect([answer.id, answer.error.code]).toEqual([null, -32700]);
  });
});
