import { once } from 'node:events';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AHandler } from './handler.js';
import { serveA2A } from './serve.js';
import { CARD, collect, frames, gatedAgent, userMessage } from './test-kit.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

function newService(agent = referenceAgent): TaskService {
  const service = new TaskService({ store: createMemoryTaskStore(), agent, card: CARD });
  cleanup.push(() => service.close());
  return service;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.unshift(() => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined));
  cleanup.unshift(async () => server.closeAllConnections());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sendBody = (text: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(text) } });
const jsonPost = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });

describe('hosting', () => {
  it('mounts into an Express app under a prefix and passes other paths on', async () => {
    const handler = createA2AHandler({ service: newService() });
    const app = express();
    app.get('/health', (_req, res) => void res.send('ok'));
    app.use('/agent', handler.node);
    app.use((_req, res) => void res.status(418).send('not ours'));
    const url = await listen(createServer(app));
    const answer = await (await jsonPost(`${url}/agent/a2a/jsonrpc`, sendBody('echo express'))).json();
    expect(answer.result.task.status.message.parts[0].text).toBe('express');
    expect(await (await fetch(`${url}/health`)).text()).toBe('ok');
    expect((await fetch(`${url}/agent/elsewhere`)).status).toBe(418);
    expect((await fetch(`${url}/agent/.well-known/agent-card.json`)).status).toBe(200);
  });

  it('uses a body Express already parsed (express.json())', async () => {
    const handler = createA2AHandler({ service: newService() });
    const app = express();
    app.use(express.json());
    app.use(handler.node);
    const url = await listen(createServer(app));
    const answer = await (await jsonPost(`${url}/a2a/jsonrpc`, sendBody('echo parsed'))).json();
    expect(answer.result.task.status.message.parts[0].text).toBe('parsed');
    const rest = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: userMessage('echo rest parsed') }),
    });
    expect((await rest.json()).task.status.message.parts[0].text).toBe('rest parsed');
  });

  it('answers 404 on other paths as a plain node listener', async () => {
    const handler = createA2AHandler({ service: newService() });
    const url = await listen(createServer(handler.node));
    const response = await fetch(`${url}/nope`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toContain('/nope');
  });

  it('serves the same protocol through the fetch handler (unary, stream, limits, 404)', async () => {
    const handler = createA2AHandler({ service: newService(), maxBodyBytes: 2048 });
    const request = (path: string, body?: string, headers: Record<string, string> = {}) =>
      handler.fetch(
        new Request(`https://agent.example${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
          body,
        }),
      );
    const unary = await (await request('/a2a/jsonrpc', sendBody('echo worker'))).json();
    expect(unary.result.task.status.message.parts[0].text).toBe('worker');
    const stream = await request('/a2a/rest/message:stream', JSON.stringify({ message: userMessage('slow 2 0') }));
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collect(stream);
    expect(events.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const tooBig = await request('/a2a/jsonrpc', sendBody('x'.repeat(4096)));
    expect(tooBig.status).toBe(413);
    const listed = await (await request('/a2a/rest/tasks')).json();
    expect(listed.tasks).toHaveLength(2);
    expect((await request('/.well-known/agent-card.json')).status).toBe(200);
    expect((await request('/other')).status).toBe(404);
  });

  it('serveA2A close() ends open streams and resolves; the task keeps running', async () => {
    const gate = gatedAgent();
    const service = newService(gate.agent);
    const server = await serveA2A({ service });
    const response = await jsonPost(`${server.url}/a2a/jsonrpc`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: userMessage('wait') } }));
    const seen = frames(response.body!);
    await seen.next();
    const taskId = await gate.started;
    await server.close();
    for await (const _ of seen);
    expect(server.handler.openStreams).toBe(0);
    gate.release();
    await service.idle();
    expect((await service.unary('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
  });
});
