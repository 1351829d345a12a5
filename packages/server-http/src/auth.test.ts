import { apiKeyAuth, bearerAuth } from '@taskwire/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { call, frames, rpc, startServer, userMessage } from './test-kit.js';

let server: TestServer;
beforeEach(async () => {
  server = await startServer({ auth: { authenticate: apiKeyAuth({ 'key-alice': 'alice', 'key-bob': 'bob' }) } });
});
afterEach(async () => {
  await server.close();
});

const ALICE = { 'x-api-key': 'key-alice' };
const BOB = { 'x-api-key': 'key-bob' };
const rest = (path: string, headers: Record<string, string>, method = 'GET') =>
  fetch(`${server.restUrl}${path}`, { method, headers: { 'a2a-version': '1.0', ...headers } });

describe('authentication', () => {
  it('answers a missing or wrong credential with 401 and WWW-Authenticate, on both bindings', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong' }] as Record<string, string>[]) {
      const viaRpc = await rpc(server.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, headers);
      expect(viaRpc.status).toBe(401);
      expect(viaRpc.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
      expect((await viaRpc.json()).error.data[0].reason).toBe('UNAUTHENTICATED');
      const viaRest = await rest('/tasks', headers);
      expect(viaRest.status).toBe(401);
      expect(viaRest.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
      expect((await viaRest.json()).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    }
    expect((await call(server.rpcUrl, 'ListTasks', {}, ALICE)).result.tasks).toEqual([]);
  });

  it('scopes every task to its principal: to anyone else it is TaskNotFound (JSON-RPC)', async () => {
    const task = (await call(server.rpcUrl, 'SendMessage', { message: userMessage('quote') }, ALICE)).result.task;
    expect((await call(server.rpcUrl, 'GetTask', { id: task.id }, BOB)).error.code).toBe(-32001);
    expect((await call(server.rpcUrl, 'CancelTask', { id: task.id }, BOB)).error.code).toBe(-32001);
    expect((await call(server.rpcUrl, 'SendMessage', { message: userMessage('insta', { taskId: task.id }) }, BOB)).error.code).toBe(-32001);
    const subscribe = await rpc(server.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: task.id } }, BOB);
    expect((await subscribe.json()).error.code).toBe(-32001);
    expect((await call(server.rpcUrl, 'ListTasks', {}, BOB)).result.tasks).toEqual([]);
    const untouched = (await call(server.rpcUrl, 'GetTask', { id: task.id }, ALICE)).result;
    expect(untouched).toEqual(task);
  });

  it('scopes every task to its principal and tenant (HTTP+JSON)', async () => {
    const sent = await fetch(`${server.restUrl}/acme/message:send`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/a2a+json', ...ALICE },
      body: JSON.stringify({ message: userMessage('quote') }),
    });
    const task = (await sent.json()).task;
    for (const [path, method] of [[`/acme/tasks/${task.id}`, 'GET'], [`/acme/tasks/${task.id}:cancel`, 'POST'], [`/acme/tasks/${task.id}:subscribe`, 'GET']] as const) {
      const answer = await rest(path, BOB, method);
      expect(answer.status).toBe(404);
      expect((await answer.json()).error.details[0].reason).toBe('TASK_NOT_FOUND');
    }
    expect((await rest(`/globex/tasks/${task.id}`, ALICE)).status).toBe(404);
    expect((await (await rest('/acme/tasks', BOB)).json()).tasks).toEqual([]);
    // The subscription follows the task on (to its terminal state): its first event is the task as it is.
    for await (const frame of frames((await rest(`/acme/tasks/${task.id}:subscribe`, ALICE)).body!)) {
      if (frame.data === undefined) continue;
      expect(JSON.parse(frame.data).task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      break;
    }
  });
});

describe('bearer tokens', () => {
  it('authenticate through bearerAuth', async () => {
    const bearer = await startServer({ auth: { authenticate: bearerAuth((token) => (token === 'good' ? { id: 'carol' } : undefined)) } });
    try {
      expect((await call(bearer.rpcUrl, 'ListTasks', {}, { authorization: 'Bearer good' })).result.tasks).toEqual([]);
      const refused = await rpc(bearer.rpcUrl, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }, { authorization: 'Bearer bad' });
      expect(refused.status).toBe(401);
    } finally {
      await bearer.close();
    }
  });
});
