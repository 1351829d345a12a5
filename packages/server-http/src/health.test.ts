import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from './handler.js';
import type { TestServer } from './test-kit.js';
import { startServer } from './test-kit.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const get = async (url: string, method = 'GET') => {
  const response = await fetch(url, { method });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), cache: response.headers.get('cache-control') };
};

describe('health checks', () => {
  it('are off unless asked for', async () => {
    server = await startServer();
    expect((await get(`${server.url}/healthz`)).status).toBe(404);
  });

  it('answer liveness and readiness at /healthz and /readyz, uncached, GET and HEAD only', async () => {
    server = await startServer({ health: true });
    expect(await get(`${server.url}/healthz`)).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store' });
    expect(await get(`${server.url}/readyz`)).toEqual({ status: 200, body: { status: 'ready' }, cache: 'no-store' });
    expect((await get(`${server.url}/readyz`, 'HEAD')).status).toBe(200);
    expect((await get(`${server.url}/healthz`, 'POST')).status).toBe(405);
  });

  it('are not ready while the store fails, nor while the server closes; liveness stays up', async () => {
    server = await startServer({ health: { livePath: '/live', readyPath: '/ready' } });
    await server.service.engine.store.close();
    const notReady = await get(`${server.url}/ready`);
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'unavailable', reason: expect.stringContaining('task store') });
    expect((await get(`${server.url}/live`)).status).toBe(200);

    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent });
    const handler = createA2AHandler({ service, health: true });
    const ready = () => handler.fetch(new Request('http://agent/readyz'));
    expect((await ready()).status).toBe(200);
    handler.close();
    expect(await (await ready()).json()).toEqual({ status: 'unavailable', reason: 'the server is shutting down' });
  });

  it('take a readiness check of your own, and stay off the A2A paths', async () => {
    let warm = false;
    server = await startServer({ health: { ready: () => warm || 'the model is still loading' } });
    expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 503, body: { reason: 'the model is still loading' } });
    warm = true;
    expect((await get(`${server.url}/readyz`)).status).toBe(200);
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent });
    expect(() => createA2AHandler({ service, health: { readyPath: '/a2a/rest/ready' } })).toThrow(/is an A2A path/);
    expect(() => createA2AHandler({ service, health: { livePath: '/a2a/jsonrpc' } })).toThrow(/is an A2A path/);
  });
});
