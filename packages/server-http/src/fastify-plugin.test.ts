import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { httpInterfaces } from './agent-card.js';
import { a2aFastify } from './fastify-plugin.js';
import { createA2AHandler } from './handler.js';
import { CARD, collect, userMessage } from './test-kit.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

/** Where clients reach the app (a proxy in front of it, say): the card's interfaces point below its prefix. */
const PUBLIC = 'https://agents.example.com/agent';

/**
 * A Fastify app with its own JSON parser, a root onRequest hook (it blocks
 * requests with `x-blocked`) and a route, the A2A plugin registered under
 * `/agent`, and the card also at the site's root (one line).
 */
async function app() {
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
  const a2a = createA2AHandler({ service, publicUrl: PUBLIC, card: (url) => ({ ...CARD, supportedInterfaces: httpInterfaces(url) }) });
  const fastify = Fastify();
  const seen: string[] = [];
  // The app's own parser wraps JSON bodies in { parsedByApp }: its routes get that, A2A must read the body itself.
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, { parsedByApp: JSON.parse(String(body)) }));
  fastify.addHook('onRequest', async (request, reply) => {
    seen.push(request.url);
    if (request.headers['x-blocked']) return reply.code(403).send({ blocked: true });
  });
  fastify.post('/echo', async (request) => request.body);
  fastify.register(a2aFastify(a2a), { prefix: '/agent' });
  fastify.get('/.well-known/agent-card.json', (request, reply) => (reply.hijack(), a2a.node(request.raw, reply.raw)));
  const base = await fastify.listen({ port: 0, host: '127.0.0.1' });
  cleanup.push(async () => (await fastify.close(), await service.close()));
  return { base, seen };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers }, body: JSON.stringify(body) });
const rpc = (method: string, text: string) => ({ jsonrpc: '2.0', id: 1, method, params: { message: userMessage(text) } });

describe('the Fastify plugin: app.register(a2aFastify(a2a), { prefix })', () => {
  it('serves JSON-RPC, HTTP+JSON and SSE below the prefix, beside the app parser, hooks and routes', async () => {
    const { base, seen } = await app();
    const sent = await (await post(`${base}/agent/a2a/jsonrpc`, rpc('SendMessage', 'echo plugin'))).json();
    expect(sent.result.task.status.message.parts[0].text).toBe('plugin');
    const rest = await fetch(`${base}/agent/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: userMessage('echo rest') }),
    });
    expect((await rest.json()).task.status.message.parts[0].text).toBe('rest');
    const streamed = await collect(await post(`${base}/agent/a2a/jsonrpc`, rpc('SendStreamingMessage', 'slow 2 0')));
    expect(streamed.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

    // The app's parser, route and hook still work, and its root hook guards A2A too.
    expect(await (await post(`${base}/echo`, { a: 1 })).json()).toEqual({ parsedByApp: { a: 1 } });
    expect((await post(`${base}/agent/a2a/jsonrpc`, rpc('SendMessage', 'echo no'), { 'x-blocked': '1' })).status).toBe(403);
    expect(seen).toContain('/agent/a2a/jsonrpc');
    // A path below the prefix that is not A2A is Fastify's 404.
    const missing = await fetch(`${base}/agent/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: expect.stringContaining('not found') });

    // The card, below the prefix and at the site's root, lists interfaces under the prefix.
    for (const path of ['/agent/.well-known/agent-card.json', '/.well-known/agent-card.json']) {
      const card = await (await fetch(`${base}${path}`)).json();
      expect(card.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual([`${PUBLIC}/a2a/jsonrpc`, `${PUBLIC}/a2a/rest`]);
    }
  });
});
