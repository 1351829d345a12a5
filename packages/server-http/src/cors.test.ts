import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyAuth, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { CorsPolicy } from './cors.js';
import { createA2AHandler } from './handler.js';
import type { TestServer } from './test-kit.js';
import { CARD, collect, startServer, userMessage } from './test-kit.js';

const APP = 'https://app.example';
const EVIL = 'https://evil.example';
const EXPOSED = 'a2a-version, a2a-extensions, www-authenticate, etag, retry-after';

let server: TestServer | undefined;
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const close of cleanup.splice(0)) await close();
});

const preflight = (url: string, origin: string, requestHeaders = 'content-type, a2a-version') =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders } });
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { origin: APP, 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify(body) });
const rpcBody = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });
const corsOf = (response: Response) => ({
  origin: response.headers.get('access-control-allow-origin'),
  expose: response.headers.get('access-control-expose-headers'),
  vary: response.headers.get('vary'),
});
const allowedFor = (origin: string | null) => ({ origin, expose: EXPOSED, vary: 'Origin' });

describe('CORS preflight', () => {
  it('answers an allowed origin with 204 and the allow headers on every A2A path, without auth', async () => {
    server = await startServer({ cors: { origins: [APP], maxAgeSeconds: 60, allowHeaders: ['X-Tenant'] }, auth: { authenticate: apiKeyAuth({ k: 'alice' }) } });
    for (const path of ['/a2a/jsonrpc', '/a2a/rest/tasks/t1:cancel', '/a2a/rest/message:stream', '/.well-known/agent-card.json']) {
      const response = await preflight(`${server.url}${path}`, APP, 'x-api-key, x-tenant');
      expect(response.status, path).toBe(204);
      const names = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'vary'];
      expect(Object.fromEntries(names.map((name) => [name, response.headers.get(name)]))).toEqual({
        'access-control-allow-origin': APP,
        'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
        'access-control-allow-headers': 'content-type, authorization, x-api-key, a2a-version, a2a-extensions, idempotency-key, last-event-id, cache-control, x-tenant',
        'access-control-max-age': '60',
        vary: 'Origin',
      });
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('refuses another origin with 403 and no CORS headers', async () => {
    server = await startServer({ cors: { origins: [APP] } });
    const response = await preflight(server.rpcUrl, EVIL);
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toBeNull();
    expect(response.headers.get('vary')).toBe('Origin');
  });

  it('leaves OPTIONS as it was without the option, and paths that are not A2A alone', async () => {
    server = await startServer();
    const rpc = await preflight(server.rpcUrl, APP);
    expect(rpc.status).toBe(405);
    expect(rpc.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(`${server.url}/.well-known/agent-card.json`, APP)).headers.get('allow')).toBe('GET, HEAD');
    await server.close();
    server = await startServer({ cors: { origins: '*' } });
    const other = await preflight(`${server.url}/elsewhere`, APP);
    expect(other.status).toBe(404);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS on answers', () => {
  it('marks JSON-RPC, REST, both SSE streams and the card (200 and 304) for an allowed origin', async () => {
    server = await startServer({ cors: { origins: [APP] } });
    const unary = await post(server.rpcUrl, rpcBody('SendMessage', { message: userMessage('echo hi') }));
    expect(corsOf(unary)).toEqual(allowedFor(APP));
    expect((await unary.json()).result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const listed = await fetch(`${server.restUrl}/tasks`, { headers: { origin: APP, 'a2a-version': '1.0' } });
    expect(corsOf(listed)).toEqual(allowedFor(APP));
    const rpcStream = await post(server.rpcUrl, rpcBody('SendStreamingMessage', { message: userMessage('slow 2 0') }));
    expect(rpcStream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(corsOf(rpcStream)).toEqual(allowedFor(APP));
    expect((await collect(rpcStream)).at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const restStream = await post(`${server.restUrl}/message:stream`, { message: userMessage('slow 2 0') });
    expect(corsOf(restStream)).toEqual(allowedFor(APP));
    expect((await collect(restStream)).at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const card = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { origin: APP } });
    expect(corsOf(card)).toEqual(allowedFor(APP));
    const cached = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { origin: APP, 'if-none-match': card.headers.get('etag')! } });
    expect(cached.status).toBe(304);
    expect(corsOf(cached)).toEqual(allowedFor(APP));
  });

  it('marks error answers too: 401, 413, 415, 404 and JSON-RPC errors', async () => {
    server = await startServer({ cors: { origins: [APP] }, auth: { authenticate: apiKeyAuth({ k: 'alice' }) }, maxBodyBytes: 512 });
    const unauthenticated = await post(server.rpcUrl, rpcBody('GetTask', { id: 'x' }));
    expect(unauthenticated.status).toBe(401);
    expect(corsOf(unauthenticated)).toEqual(allowedFor(APP));
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
    const tooLarge = await post(server.rpcUrl, rpcBody('SendMessage', { message: userMessage('x'.repeat(1024)) }), { 'x-api-key': 'k' });
    expect(tooLarge.status).toBe(413);
    expect(corsOf(tooLarge)).toEqual(allowedFor(APP));
    const wrongType = await fetch(`${server.restUrl}/message:send`, { method: 'POST', headers: { origin: APP, 'content-type': 'text/plain', 'x-api-key': 'k' }, body: 'hi' });
    expect(wrongType.status).toBe(415);
    expect(corsOf(wrongType)).toEqual(allowedFor(APP));
    const missing = await fetch(`${server.restUrl}/tasks/nope`, { headers: { origin: APP, 'x-api-key': 'k', 'a2a-version': '1.0' } });
    expect(missing.status).toBe(404);
    expect(corsOf(missing)).toEqual(allowedFor(APP));
  });

  it('gives another origin only Vary: Origin, and a request without Origin no CORS header', async () => {
    server = await startServer({ cors: { origins: [APP] } });
    const evil = await post(server.rpcUrl, rpcBody('ListTasks', {}), { origin: EVIL });
    expect(evil.status).toBe(200);
    expect(corsOf(evil)).toEqual({ origin: null, expose: null, vary: 'Origin' });
    const sameOrigin = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(corsOf(sameOrigin)).toEqual({ origin: null, expose: null, vary: 'Origin' });
  });

  it("answers * for any origin, and the origin itself with credentials", async () => {
    server = await startServer({ cors: { origins: '*' } });
    expect(corsOf(await post(server.rpcUrl, rpcBody('ListTasks', {}), { origin: EVIL })).origin).toBe('*');
    await server.close();
    server = await startServer({ cors: { origins: ['https://App.Example:443/'], credentials: true } });
    const response = await post(server.rpcUrl, rpcBody('ListTasks', {}));
    expect(corsOf(response)).toEqual(allowedFor(APP));
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await preflight(server.rpcUrl, APP)).headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('sends no CORS header without the option', async () => {
    server = await startServer();
    const response = await post(server.rpcUrl, rpcBody('ListTasks', {}));
    expect(corsOf(response)).toEqual({ origin: null, expose: null, vary: null });
  });

  it('refuses options that would be unsafe or cannot match', () => {
    expect(() => new CorsPolicy({ origins: '*', credentials: true })).toThrow(/explicit list of origins/);
    for (const origin of ['app.example', 'https://app.example/path', 'localhost:3000']) {
      expect(() => new CorsPolicy({ origins: [origin] })).toThrow(/is not an origin/);
    }
  });
});

describe('CORS on every host', () => {
  const handler = () => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
    cleanup.push(() => service.close());
    return createA2AHandler({ service, cors: { origins: [APP] } });
  };

  it('the node listener', async () => {
    const http = createServer(handler().node);
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    cleanup.push(() => http.closeAllConnections(), () => new Promise((resolve) => http.close(resolve)));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    expect((await preflight(`${url}/a2a/jsonrpc`, APP)).status).toBe(204);
    expect(corsOf(await post(`${url}/a2a/jsonrpc`, rpcBody('ListTasks', {})))).toEqual(allowedFor(APP));
  });

  it('the fetch handler', async () => {
    const a2a = handler();
    const answer = await a2a.fetch(new Request('https://agent.example/a2a/jsonrpc', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } }));
    expect([answer.status, answer.headers.get('access-control-allow-origin')]).toEqual([204, APP]);
    const stream = await a2a.fetch(
      new Request('https://agent.example/a2a/rest/message:stream', {
        method: 'POST',
        headers: { origin: APP, 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ message: userMessage('slow 1 0') }),
      }),
    );
    expect(corsOf(stream)).toEqual(allowedFor(APP));
    expect((await collect(stream)).at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
