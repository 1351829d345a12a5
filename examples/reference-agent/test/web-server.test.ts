import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DRAIN_GRACE_MS } from '../src/options.js';
import { serveAll, type RunningAgent } from '../src/serve-all.js';
import { createWebPage, PAGE_SCRIPT_PATH } from '../src/web/page-server.js';

let agent: RunningAgent;

beforeAll(async () => {
  agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: 'sekret', drainGraceMs: DEFAULT_DRAIN_GRACE_MS });
});
afterAll(async () => {
  await agent?.close();
});

describe('the web page beside the A2A endpoints (serveAll)', () => {
  it('serves the page at / with a same-origin-only policy, even when an API key is required', async () => {
    const reply = await fetch(agent.urls.page);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = reply.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    const html = await reply.text();
    expect(html).toContain(`<script type="module" src="${PAGE_SCRIPT_PATH}"></script>`);
    for (const id of ['log', 'composer', 'input', 'send', 'cancel', 'api-key', 'new-conversation', 'route']) expect(html).toContain(`id="${id}"`);
    // Nothing is fetched from another origin.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves the script bundled for browsers: the client from source, no Node built-ins', async () => {
    const reply = await fetch(`${agent.baseUrl}${PAGE_SCRIPT_PATH}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const script = await reply.text();
    // Booleans, so that a failure does not print half a megabyte of script.
    expect(script.includes('.well-known/agent-card.json')).toBe(true);
    expect(script.includes('taskwire.contextId')).toBe(true);
    expect(/["']node:[a-z_]+["']/.test(script)).toBe(false);
  });

  it('bundles the script in the background: `ready` resolves once it is built', async () => {
    await expect(createWebPage().ready).resolves.toBeUndefined();
  });

  it('answers HEAD without a body, another method with 405, and an unknown path with a 404 that lists the endpoints', async () => {
    const head = await fetch(agent.urls.page, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');

    const post = await fetch(agent.urls.page, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    const missing = await fetch(`${agent.baseUrl}/nowhere`);
    expect(missing.status).toBe(404);
    const text = await missing.text();
    expect(text).toContain('the chat page is at /');
    expect(text).toContain('/a2a/jsonrpc');
  });

  it('leaves the A2A endpoints as they were: the card is public, JSON-RPC wants the key', async () => {
    const card = await fetch(agent.urls.card);
    expect(card.status).toBe(200);
    expect((await card.json()).name).toBe('Taskwire reference agent');
    const call = (headers: Record<string, string>) =>
      fetch(agent.urls.jsonRpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
    expect((await call({})).status).toBe(401);
    expect((await call({ 'x-api-key': 'sekret' })).status).toBe(200);
    const rest = await fetch(`${agent.urls.rest}/tasks/unknown`, { headers: { 'x-api-key': 'sekret', 'a2a-version': '1.0' } });
    expect(rest.status).toBe(404);
    expect((await rest.json()).error.details[0].reason).toBe('TASK_NOT_FOUND');
  });
});
