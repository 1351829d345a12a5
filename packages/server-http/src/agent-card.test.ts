import { apiKeyAuth } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { httpInterfaces } from './agent-card.js';
import type { TestServer } from './test-kit.js';
import { CARD, call, startServer } from './test-kit.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const cardUrl = (s: TestServer) => `${s.url}/.well-known/agent-card.json`;

describe('agent card', () => {
  it('is served at /.well-known/agent-card.json listing the JSON-RPC and HTTP+JSON interfaces of the server', async () => {
    server = await startServer();
    const response = await fetch(cardUrl(server));
    expect(response.status).toBe(200);
    const card = await response.json();
    expect(card.name).toBe(CARD.name);
    expect(card.supportedInterfaces).toEqual([
      { url: `${server.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });

  it('carries Cache-Control and an ETag, and answers 304 to a matching If-None-Match', async () => {
    server = await startServer({ cardMaxAgeSeconds: 60 });
    const first = await fetch(cardUrl(server));
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"0\.1\.0-[0-9a-f]{16}"$/);
    const again = await fetch(cardUrl(server), { headers: { 'if-none-match': `"other", W/${etag}` } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    const changed = await fetch(cardUrl(server), { headers: { 'if-none-match': '"stale"' } });
    expect(changed.status).toBe(200);
  });

  it('carries Last-Modified, and answers 304 to an If-Modified-Since at or after it unless an If-None-Match says otherwise', async () => {
    const lastModified = new Date('2026-03-04T05:06:07.890Z');
    server = await startServer({ cardLastModified: lastModified });
    const first = await fetch(cardUrl(server));
    expect(first.headers.get('last-modified')).toBe('Wed, 04 Mar 2026 05:06:07 GMT');
    const etag = first.headers.get('etag')!;
    const since = (date: string, extra: Record<string, string> = {}) => fetch(cardUrl(server!), { headers: { 'if-modified-since': date, ...extra } });
    for (const date of ['Wed, 04 Mar 2026 05:06:07 GMT', 'Thu, 05 Mar 2026 00:00:00 GMT']) {
      const unchanged = await since(date);
      expect([date, unchanged.status]).toEqual([date, 304]);
      expect(unchanged.headers.get('last-modified')).toBe('Wed, 04 Mar 2026 05:06:07 GMT');
      expect(unchanged.headers.get('etag')).toBe(etag);
    }
    expect((await since('Wed, 04 Mar 2026 05:06:06 GMT')).status).toBe(200);
    expect((await since('not a date')).status).toBe(200);
    // If-None-Match takes precedence (RFC 9110 §13.1.3): a stale tag means the card is sent, whatever the date says.
    expect((await since('Thu, 05 Mar 2026 00:00:00 GMT', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('dates the card from when the server started when no date is given', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    server = await startServer();
    const stamped = Date.parse((await fetch(cardUrl(server))).headers.get('last-modified')!);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  it('takes a card built from the base URL, and is never behind auth', async () => {
    server = await startServer({
      auth: { authenticate: apiKeyAuth({ k: 'alice' }) },
      card: (url: string) => ({ ...CARD, supportedInterfaces: [...httpInterfaces(url), { url: 'grpc://127.0.0.1:9', protocolBinding: 'GRPC', protocolVersion: '1.0' }] }),
    });
    const card = await (await fetch(cardUrl(server))).json();
    expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
  });

  it('serves the extended card only to authenticated callers', async () => {
    const card = { ...CARD, capabilities: { ...CARD.capabilities, extendedAgentCard: true } };
    const extendedCard = { ...card, description: 'The extended card, for callers we know' };
    server = await startServer({ card, extendedCard, auth: { authenticate: apiKeyAuth({ 'key-a': 'alice' }), required: false, challenge: 'ApiKey header="x-api-key"' } });
    const anonymous = await fetch(server.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetExtendedAgentCard', params: {} }),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('ApiKey header="x-api-key"');
    expect((await anonymous.json()).error.code).toBe(-32030);
    const rest = await fetch(`${server.restUrl}/extendedAgentCard`, { headers: { 'a2a-version': '1.0' } });
    expect(rest.status).toBe(401);
    const known = await call(server.rpcUrl, 'GetExtendedAgentCard', {}, { 'x-api-key': 'key-a' });
    expect(known.result.description).toBe('The extended card, for callers we know');
    const viaRest = await fetch(`${server.restUrl}/extendedAgentCard`, { headers: { 'a2a-version': '1.0', 'x-api-key': 'key-a' } });
    expect((await viaRest.json()).description).toBe('The extended card, for callers we know');
    expect((await call(server.rpcUrl, 'ListTasks', {})).result.tasks).toEqual([]);
  });

  it('httpInterfaces builds the entries for a base URL, with a tenant or without a binding', () => {
    expect(httpInterfaces('https://agent.example/', { tenant: 'acme', restPath: false })).toEqual([
      { url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
    ]);
    expect(httpInterfaces('https://agent.example', { jsonRpcPath: '/rpc', restPath: '/v1' }).map((i) => i.url)).toEqual([
      'https://agent.example/rpc',
      'https://agent.example/v1',
    ]);
  });
});
