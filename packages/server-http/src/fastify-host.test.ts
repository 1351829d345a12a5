import type { Agent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import type { FastifyInstance } from 'fastify';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { A2AHandler } from './handler.js';
import { createA2AHandler } from './handler.js';
import { CARD, collect, frames, gatedAgent, userMessage } from './test-kit.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

/**
 * A Fastify app as a user would write it (the README's recipe): an
 * `onRequest` hook hijacks A2A requests before Fastify reads their body and
 * hands the raw request and response to the node handler; every other
 * request goes on to Fastify's own routes.
 */
async function fastifyApp(agent: Agent = referenceAgent): Promise<{ url: string; a2a: A2AHandler; service: TaskService; app: FastifyInstance }> {
  const service = new TaskService({ store: createMemoryTaskStore(), agent, card: CARD });
  const a2a = createA2AHandler({ service });
  const app = Fastify();
  app.addHook('onRequest', (request, reply, done) => {
    if (!a2a.matches(request.url)) return done();
    reply.hijack();
    a2a.node(request.raw, reply.raw);
  });
  app.addHook('preClose', (done) => (a2a.close(), done()));
  app.get('/health', async () => ({ ok: true }));
  app.post('/echo', async (request) => ({ got: request.body }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  cleanup.push(async () => (await app.close(), await service.close()));
  return { url, a2a, service, app };
}

const post = (url: string, body: unknown, contentType = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType, 'a2a-version': '1.0' }, body: JSON.stringify(body) });
const rpc = (method: string, text: string) => ({ jsonrpc: '2.0', id: 1, method, params: { message: userMessage(text) } });

describe('hosting in Fastify', () => {
  it('answers a blocking SendMessage over JSON-RPC', async () => {
    const { url } = await fastifyApp();
    const response = await post(`${url}/a2a/jsonrpc`, rpc('SendMessage', 'echo fastify'));
    expect(response.status).toBe(200);
    const answer = await response.json();
    expect(answer.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.result.task.status.message.parts[0].text).toBe('fastify');
  });

  it('streams SendStreamingMessage as SSE until the task completes', async () => {
    const { url } = await fastifyApp();
    const response = await post(`${url}/a2a/jsonrpc`, rpc('SendStreamingMessage', 'slow 3 0'));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collect(response);
    expect(events.filter((e) => e.data.result.artifactUpdate)).toHaveLength(3);
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  });

  it('serves the HTTP+JSON binding, with a media type Fastify has no parser for', async () => {
    const { url } = await fastifyApp();
    const sent = await post(`${url}/a2a/rest/message:send`, { message: userMessage('echo rest') }, 'application/a2a+json');
    expect(sent.status).toBe(200);
    const { task } = await sent.json();
    expect(task.status.message.parts[0].text).toBe('rest');
    const got = await fetch(`${url}/a2a/rest/tasks/${task.id}?historyLength=1`, { headers: { 'a2a-version': '1.0' } });
    expect((await got.json()).history).toHaveLength(1);
  });

  it('serves the agent card with its ETag', async () => {
    const { url } = await fastifyApp();
    const response = await fetch(`${url}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    expect((await response.json()).name).toBe(CARD.name);
    const again = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'if-none-match': response.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it("leaves other paths to Fastify's routes, body parsing and 404", async () => {
    const { url } = await fastifyApp();
    expect(await (await fetch(`${url}/health`)).json()).toEqual({ ok: true });
    expect(await (await post(`${url}/echo`, { a: 1 })).json()).toEqual({ got: { a: 1 } });
    const missing = await fetch(`${url}/a2a-not/jsonrpc`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toContain('not found');
  });

  it('app.close() ends open streams (preClose hook) and the task keeps running', async () => {
    const gate = gatedAgent();
    const { url, a2a, service, app } = await fastifyApp(gate.agent);
    const response = await post(`${url}/a2a/jsonrpc`, rpc('SendStreamingMessage', 'wait'));
    const seen = frames(response.body!);
    await seen.next();
    const taskId = await gate.started;
    await app.close();
    for await (const _ of seen);
    expect(a2a.openStreams).toBe(0);
    gate.release();
    await service.idle();
    expect((await service.unary('GetTask', { id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('matches', () => {
  it('is true exactly for the A2A paths, with or without a query', () => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
    cleanup.push(() => service.close());
    const a2a = createA2AHandler({ service });
    for (const url of ['/a2a/jsonrpc', '/a2a/jsonrpc/', '/a2a/rest/tasks?pageSize=2', '/a2a/rest', '/.well-known/agent-card.json?x=1']) {
      expect(a2a.matches(url), url).toBe(true);
    }
    for (const url of ['/', '/a2a', '/a2a/jsonrpcx', '/a2a/restful', '/health?a2a/jsonrpc']) expect(a2a.matches(url), url).toBe(false);
  });
});
