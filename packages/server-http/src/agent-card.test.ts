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
