import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { httpInterfaces } from './agent-card.js';
import { createA2AHandler } from './handler.js';
import { serveA2A } from './serve.js';
import type { TestServer } from './test-kit.js';
import { CARD, startServer } from './test-kit.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The card's interface URLs as a real client reads them, with `headers` on the request. */
async function cardUrls(s: TestServer, headers: Record<string, string> = {}): Promise<string[]> {
  const response = await fetch(`${s.url}/.well-known/agent-card.json`, { headers });
  expect(response.status).toBe(200);
  return (await response.json()).supportedInterfaces.map((i: { url: string }) => i.url);
}

const under = (base: string) => [`${base}/a2a/jsonrpc`, `${base}/a2a/rest`];

describe('publicUrl: the card points at the load balancer, not at this process', () => {
  it("builds the default card's interfaces under publicUrl (a path prefix kept), and ignores forwarded headers", async () => {
    server = await startServer({ publicUrl: 'https://agents.example.com/billing/' });
    expect(server.publicUrl).toBe('https://agents.example.com/billing');
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await cardUrls(server)).toEqual(under('https://agents.example.com/billing'));
    // trustProxy is off: a client's forwarded headers change nothing, and the card does not vary on them.
    const response = await fetch(`${server.url}/.well-known/agent-card.json`, {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', forwarded: 'host=evil.example;proto=http' },
    });
    expect((await response.json()).supportedInterfaces[0].url).toBe('https://agents.example.com/billing/a2a/jsonrpc');
    expect(response.headers.get('vary')).toBeNull();
  });

  it('calls a card function with publicUrl (so gRPC and WebSocket entries can follow), and serves the calls at its own address', async () => {
    const seen: string[] = [];
    server = await startServer({
      publicUrl: 'http://lb.internal:8080',
      card: (base) => {
        seen.push(base);
        return { ...CARD, supportedInterfaces: [...httpInterfaces(base), { url: `${base.replace(/^http/, 'ws')}/a2a/ws`, protocolBinding: 'WS', protocolVersion: '1.0' }] };
      },
    });
    expect(seen).toEqual(['http://lb.internal:8080']);
    expect(await cardUrls(server)).toEqual([...under('http://lb.internal:8080'), 'ws://lb.internal:8080/a2a/ws']);
    const sent = await fetch(server.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } } }),
    });
    expect((await sent.json()).result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('adds the v0.3 url of the public JSON-RPC interface when v03Discovery is on', async () => {
    server = await startServer({ publicUrl: 'https://agents.example.com', v03Discovery: true });
    const card = await (await fetch(`${server.url}/.well-known/agent-card.json`)).json();
    expect(card.url).toBe('https://agents.example.com/a2a/jsonrpc');
  });

  it('refuses a publicUrl that is no absolute http(s) URL, before listening', async () => {
    for (const bad of ['agents.example.com', 'ftp://agents.example.com', 'javascript:alert(1)', 'https://u:p@agents.example.com', 'https://a.example/?q=1', 'https://a.example/#x']) {
      await expect(startServer({ publicUrl: bad }), bad).rejects.toThrow(/publicUrl must be an absolute http\(s\) URL/);
    }
  });

  it('is required by createA2AHandler for a card function (it has no address of its own)', () => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
    expect(() => createA2AHandler({ service, card: (base) => ({ ...CARD, supportedInterfaces: httpInterfaces(base) }) })).toThrow(/needs publicUrl/);
    const handler = createA2AHandler({ service, publicUrl: 'https://a.example', card: (base) => ({ ...CARD, supportedInterfaces: httpInterfaces(base) }) });
    expect(handler.matches('/.well-known/agent-card.json')).toBe(true);
  });
});

describe('trustProxy: the card follows the proxy in front', () => {
  it('takes X-Forwarded-Proto and X-Forwarded-Host (first value), varies on them, and gives each base URL its own ETag', async () => {
    server = await startServer({ trustProxy: true });
    expect(await cardUrls(server, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'lb.example.com:8443' })).toEqual(under('https://lb.example.com:8443'));
    expect(await cardUrls(server, { 'x-forwarded-proto': 'HTTPS, http', 'x-forwarded-host': 'lb.example.com, inner.example' })).toEqual(under('https://lb.example.com'));
    // Only the host reported: the scheme stays the server's; only the scheme: the host does.
    expect(await cardUrls(server, { 'x-forwarded-host': '[::1]:8080' })).toEqual(under('http://[::1]:8080'));
    expect(await cardUrls(server, { 'x-forwarded-proto': 'https' })).toEqual(under(server.url.replace(/^http/, 'https')));
    expect(await cardUrls(server)).toEqual(under(server.url));
    const a = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'x-forwarded-host': 'a.example' } });
    const b = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'x-forwarded-host': 'b.example' } });
    expect(a.headers.get('vary')).toBe('Forwarded, X-Forwarded-Proto, X-Forwarded-Host');
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
    const again = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'x-forwarded-host': 'a.example', 'if-none-match': a.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('vary')).toBe('Forwarded, X-Forwarded-Proto, X-Forwarded-Host');
  });

  it('takes RFC 7239 Forwarded (first element, quoted values) over X-Forwarded-*, and keeps the publicUrl path', async () => {
    server = await startServer({ trustProxy: true, publicUrl: 'http://lb.internal/agent' });
    const forwarded = (value: string) => cardUrls(server!, { forwarded: value, 'x-forwarded-host': 'ignored.example', 'x-forwarded-proto': 'http' });
    expect(await forwarded('for=192.0.2.60;proto=https;host=agents.example.com, for=10.0.0.1;host=inner')).toEqual(under('https://agents.example.com/agent'));
    expect(await forwarded('For="[2001:db8:cafe::17]:4711";Proto=HTTPS;Host="agents.example.com:444"')).toEqual(under('https://agents.example.com:444/agent'));
    // Forwarded without host: the host comes from X-Forwarded-Host.
    expect(await cardUrls(server, { forwarded: 'for=192.0.2.60;proto=https', 'x-forwarded-host': 'x.example' })).toEqual(under('https://x.example/agent'));
    expect(await cardUrls(server)).toEqual(under('http://lb.internal/agent'));
  });

  it('ignores a report with a scheme other than http(s) or a host that is no valid host[:port]: the card keeps publicUrl', async () => {
    server = await startServer({ trustProxy: true, publicUrl: 'https://agents.example.com' });
    const injections: Record<string, string>[] = [
      { 'x-forwarded-proto': 'javascript' },
      { 'x-forwarded-proto': 'ftp', 'x-forwarded-host': 'evil.example' },
      { 'x-forwarded-proto': 'https://evil.example/#' },
      { 'x-forwarded-host': 'evil.example/phish' },
      { 'x-forwarded-host': 'user@evil.example' },
      { 'x-forwarded-host': 'evil.example:99999' },
      { 'x-forwarded-host': 'evil.example:0' },
      { 'x-forwarded-host': 'evil example' },
      { 'x-forwarded-host': 'evil.example?x=1' },
      { 'x-forwarded-host': '"><script>' },
      { 'x-forwarded-host': '[not-ipv6]' },
      { 'x-forwarded-host': `${'a'.repeat(64)}.example` },
      { forwarded: 'proto=gopher;host=evil.example' },
      { forwarded: 'host="evil.example/path"' },
      { forwarded: 'host=evil.example;;proto=https' },
      { forwarded: 'host="unterminated' },
      { forwarded: 'host=a.example;host=b.example' },
      { forwarded: 'host=evil.example garbage' },
    ];
    for (const headers of injections) {
      expect([headers, await cardUrls(server, headers)]).toEqual([headers, under('https://agents.example.com')]);
    }
  });

  it('leaves a fixed card as it is', async () => {
    const fixed = { ...CARD, supportedInterfaces: httpInterfaces('https://fixed.example') };
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: CARD });
    const served = await serveA2A({ service, card: fixed, trustProxy: true });
    try {
      const card = await (await fetch(`${served.url}/.well-known/agent-card.json`, { headers: { 'x-forwarded-host': 'lb.example.com' } })).json();
      expect(card.supportedInterfaces.map((i: { url: string }) => i.url)).toEqual(under('https://fixed.example'));
    } finally {
      await served.close();
      await service.close();
    }
  });
});
