import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { httpInterfaces } from './agent-card.js';
import { createA2AHandler } from './handler.js';
import { CARD, collect, userMessage } from './test-kit.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0)) await close();
});

const PUBLIC = 'https://agents.example.com/agent';

/** A Hono app (on Node, @hono/node-server) that mounts the fetch handler under /agent and serves the card at the root too (docs/hosting/hono.md). */
async function honoApp(): Promise<string> {
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
  const a2a = createA2AHandler({ service, publicUrl: PUBLIC, card: (url) => ({ ...CARD, supportedInterfaces: httpInterfaces(url) }) });
  const app = new Hono();
  app.get('/health', (c) => c.json({ ok: true }));
  app.mount('/agent', a2a.fetch); // Hono strips /agent for the handler
  app.get('/.well-known/agent-card.json', (c) => a2a.fetch(c.req.raw)); // the card at the site's root
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  cleanup.push(async () => {
    a2a.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await service.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify(body) });
const rpc = (method: string, text: string) => ({ jsonrpc: '2.0', id: 1, method, params: { message: userMessage(text) } });

describe('hosting in Hono: app.mount(prefix, handler.fetch)', () => {
  it('serves JSON-RPC and SSE below the prefix, the card at the root, and leaves the app its routes', async () => {
    const base = await honoApp();
    const sent = await (await post(`${base}/agent/a2a/jsonrpc`, rpc('SendMessage', 'echo hono'))).json();
    expect(sent.result.task.status.message.parts[0].text).toBe('hono');
    const response = await post(`${base}/agent/a2a/jsonrpc`, rpc('SendStreamingMessage', 'slow 3 0'));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collect(response);
    expect(events.filter((e) => e.data.result.artifactUpdate)).toHaveLength(3);
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ ok: true });
    for (const path of ['/agent/.well-known/agent-card.json', '/.well-known/agent-card.json']) {
      const card = await (await fetch(`${base}${path}`)).json();
      expect(card.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual([`${PUBLIC}/a2a/jsonrpc`, `${PUBLIC}/a2a/rest`]);
    }
  });
});
