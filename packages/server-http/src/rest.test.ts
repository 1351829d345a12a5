import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestServer } from './test-kit.js';
import { collect, startServer, userMessage } from './test-kit.js';

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

const V1 = { 'a2a-version': '1.0' };
const post = (path: string, body?: unknown, contentType = 'application/a2a+json', headers: Record<string, string> = {}) =>
  fetch(`${server.restUrl}${path}`, {
    method: 'POST',
    headers: { ...V1, ...(body !== undefined && { 'content-type': contentType }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.restUrl}${path}`, { headers: { ...V1, ...headers } });
const send = async (text: string, extra = {}, prefix = '') => (await (await post(`${prefix}/message:send`, { message: userMessage(text, extra) })).json()).task;

describe('HTTP+JSON binding', () => {
  it('POST /message:send takes application/a2a+json and application/json, and answers application/a2a+json', async () => {
    for (const type of ['application/a2a+json', 'application/json; charset=utf-8']) {
      const response = await post('/message:send', { message: userMessage('echo typed') }, type);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/a2a+json');
      expect((await response.json()).task.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('GET /tasks/{id} takes camelCase query params (historyLength)', async () => {
    const task = await send('echo hist');
    expect((await (await get(`/tasks/${task.id}`)).json()).history.length).toBeGreaterThan(0);
    expect((await (await get(`/tasks/${task.id}?historyLength=0`)).json()).history).toBeUndefined();
  });

  it('GET /tasks filters with camelCase query params and enum names', async () => {
    await send('echo a', { contextId: 'ctx-q' });
    const waiting = await send('quote', { contextId: 'ctx-q' });
    await send('echo b', { contextId: 'elsewhere' });
    const inContext = await (await get('/tasks?contextId=ctx-q&includeArtifacts=true&pageSize=10')).json();
    expect(inContext.tasks.map((t: { contextId: string }) => t.contextId)).toEqual(['ctx-q', 'ctx-q']);
    const byState = await (await get('/tasks?status=TASK_STATE_INPUT_REQUIRED')).json();
    expect(byState.tasks.map((t: { id: string }) => t.id)).toEqual([waiting.id]);
    const bad = await get('/tasks?pageSize=lots');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain('pageSize');
  });

  it('POST /tasks/{id}:cancel works with an empty body', async () => {
    const task = await send('quote');
    const response = await post(`/tasks/${task.id}:cancel`);
    expect((await response.json()).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('POST /message:stream streams bare StreamResponses with id: sequences', async () => {
    const response = await post('/message:stream', { message: userMessage('slow 2 0') });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collect(response);
    expect(events[0]!.data.task).toBeDefined();
    expect(events.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
  });

  it(':subscribe streams on GET and on POST', async () => {
    for (const verb of ['GET', 'POST']) {
      const task = (await (await post('/message:send', { message: userMessage('slow 2 20'), configuration: { returnImmediately: true } })).json()).task;
      const response = await fetch(`${server.restUrl}/tasks/${task.id}:subscribe`, { method: verb, headers: V1 });
      const events = await collect(response);
      expect(events[0]!.data.task.id).toBe(task.id);
      expect(events.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('serves every route under a /{tenant} prefix, scoping tasks to that tenant', async () => {
    const task = await send('quote', {}, '/acme');
    expect((await get(`/acme/tasks/${task.id}`)).status).toBe(200);
    expect((await (await get('/acme/tasks')).json()).tasks).toHaveLength(1);
    expect((await get(`/tasks/${task.id}`)).status).toBe(404);
    expect((await get(`/umbrella/tasks/${task.id}`)).status).toBe(404);
    expect((await (await get('/tasks')).json()).tasks).toHaveLength(0);
    expect((await post(`/acme/tasks/${task.id}:cancel`)).status).toBe(200);
  });

  it('answers errors as AIP-193 bodies with the error HTTP status', async () => {
    const missing = await get('/tasks/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: 404,
        status: 'NOT_FOUND',
        message: expect.stringContaining('nope'),
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } }],
      },
    });
    const done = await send('echo done');
    const notCancelable = await post(`/tasks/${done.id}:cancel`);
    expect(notCancelable.status).toBe(400);
    expect((await notCancelable.json()).error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION', details: [{ reason: 'TASK_NOT_CANCELABLE' }] });
    const invalid = await post('/message:send', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('message.parts') });
    const malformed = await post('/message:send', '{"message": ');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.details[0].reason).toBe('PARSE_ERROR');
    const wrongType = await post('/message:send', 'message=hi', 'application/x-www-form-urlencoded');
    expect(wrongType.status).toBe(415);
    expect((await wrongType.json()).error.details[0].reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('answers the push-config routes with PushNotificationNotSupported', async () => {
    const task = await send('quote');
    const base = `${server.restUrl}/tasks/${task.id}/pushNotificationConfigs`;
    const answers = await Promise.all([
      fetch(base, { method: 'POST', headers: { ...V1, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com/hook' }) }),
      fetch(base, { headers: V1 }),
      fetch(`${base}/c1`, { headers: V1 }),
      fetch(`${base}/c1`, { method: 'DELETE', headers: V1 }),
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect((await answer.json()).error.details[0].reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
    }
  });

  it('answers 404 for unknown paths and 405 (with Allow) for a known path with the wrong verb', async () => {
    const unknown = await get('/nothing/here/at/all');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.details[0].reason).toBe('METHOD_NOT_FOUND');
    const wrongVerb = await fetch(`${server.restUrl}/message:send`, { headers: V1 });
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get('allow')).toBe('POST');
  });

  it('answers a request without A2A-Version in v0.3 shapes, and ?A2A-Version=1.0 in v1.0 shapes', async () => {
    const task = await send('echo versions');
    const v03 = await (await fetch(`${server.restUrl}/tasks/${task.id}`)).json();
    expect(v03).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    const v1 = await (await fetch(`${server.restUrl}/tasks/${task.id}?A2A-Version=1.0`)).json();
    expect(v1.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses an unsupported A2A-Version with VersionNotSupported (a bare major too: versions are Major.Minor)', async () => {
    for (const version of ['3.0', '1']) {
      const response = await get('/tasks', { 'a2a-version': version });
      expect(response.status).toBe(400);
      expect((await response.json()).error.details[0].reason).toBe('VERSION_NOT_SUPPORTED');
    }
    expect((await get('/tasks', { 'a2a-version': '1.0.3' })).status).toBe(200);
  });
});
