import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } from '@a2a-js/sdk/client';
import { isLegacyAgentCard, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import type { AgentCard } from '@taskwire/core';
import { agentCardToV1, signAgentCard, verifyAgentCard } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCardEndpoint, httpInterfaces } from './agent-card.js';
import type { TestServer } from './test-kit.js';
import { CARD, startServer } from './test-kit.js';
import { withV03Discovery } from './v03-card.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fetchCard = async (s: TestServer) => (await fetch(`${s.url}/.well-known/agent-card.json`)).json();
const CACHING = { maxAgeSeconds: 300, lastModified: new Date(0) };
/** The v0.3 discovery fields are an option of the server (off by default); these tests turn it on. */
const V03 = { v03Discovery: true } as const;
const withInterfaces = (supportedInterfaces: AgentCard['supportedInterfaces'], extra: object = {}): AgentCard => ({ ...CARD, supportedInterfaces, ...extra });

describe('the served card, discoverable by v0.3 clients (v03Discovery on)', () => {
  it('is a pure v1.0 card by default: none of the v0.3 fields', async () => {
    server = await startServer();
    const card = await fetchCard(server);
    for (const field of ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion', 'supportsAuthenticatedExtendedCard']) expect(card).not.toHaveProperty(field);
    expect(card.supportedInterfaces).toEqual(httpInterfaces(server.url));
  });

  it('adds url, preferredTransport, additionalInterfaces and protocolVersion for the JSON-RPC interface; the v1.0 fields stay', async () => {
    server = await startServer(V03);
    const card = await fetchCard(server);
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      url: server.rpcUrl,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: server.rpcUrl, transport: 'JSONRPC', protocolVersion: '0.3' }],
    });
    // The HTTP+JSON binding speaks 1.0 only (v0.3's REST paths and bodies differ): not offered to v0.3 clients.
    expect(card.additionalInterfaces).toHaveLength(1);
    expect(card.supportedInterfaces).toEqual(httpInterfaces(server.url));
    // Our own client (and any v1.0 reader) still goes by supportedInterfaces.
    expect(agentCardToV1(card).supportedInterfaces).toEqual(httpInterfaces(server.url));
  });

  it("derives the ETag from the card as served, so it changes with the added fields", async () => {
    server = await startServer(V03);
    const response = await fetch(`${server.url}/.well-known/agent-card.json`);
    const served = await response.text();
    const plain = { ...CARD, supportedInterfaces: httpInterfaces(server.url) };
    expect(response.headers.get('etag')).toBe(new AgentCardEndpoint(JSON.parse(served), CACHING).etag);
    expect(response.headers.get('etag')).not.toBe(new AgentCardEndpoint(plain, CACHING).etag);
  });

  it('offers gRPC, WebSocket and HTTP+JSON entries to v0.3 clients only when the card declares them at 0.x', async () => {
    const grpc03 = { url: 'grpc://127.0.0.1:9', protocolBinding: 'GRPC', protocolVersion: '0.3' };
    server = await startServer({
      ...V03,
      card: (url) =>
        withInterfaces([
          ...httpInterfaces(url),
          { url: 'grpc://127.0.0.1:8', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          { url: 'ws://127.0.0.1:7/a2a/ws', protocolBinding: 'https://taskwire.dev/bindings/ws', protocolVersion: '1.0' },
          grpc03,
        ]),
    });
    const card = await fetchCard(server);
    expect(card.url).toBe(server.rpcUrl);
    expect(card.additionalInterfaces.map((i: { url: string; transport: string }) => [i.transport, i.url])).toEqual([
      ['JSONRPC', server.rpcUrl],
      ['GRPC', grpc03.url],
    ]);
  });

  it('keeps the v0.3 fields a card already sets', async () => {
    const own = { url: 'https://agent.example/rpc', preferredTransport: 'JSONRPC', protocolVersion: '0.3.1' };
    server = await startServer({ ...V03, card: (url) => withInterfaces(httpInterfaces(url), own) });
    const card = await fetchCard(server);
    expect(card).toMatchObject(own);
    expect(card.additionalInterfaces).toBeUndefined();
  });

  it('adds supportsAuthenticatedExtendedCard from the capabilities', () => {
    const card = withV03Discovery(withInterfaces(httpInterfaces('http://h'), { capabilities: { extendedAgentCard: true } }), '/a2a/jsonrpc');
    expect(card).toMatchObject({ supportsAuthenticatedExtendedCard: true, capabilities: { extendedAgentCard: true } });
  });

  it('finds the JSON-RPC interface of a handler mounted below a prefix, or behind a proxy that rewrites the path', () => {
    const mounted = withInterfaces([
      { url: 'https://other.example/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example/agent/a2a/jsonrpc/', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    expect(withV03Discovery(mounted, '/a2a/jsonrpc')).toMatchObject({ url: 'https://agent.example/agent/a2a/jsonrpc/' });
    const proxied = withInterfaces([{ url: 'https://agent.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(withV03Discovery(proxied, '/a2a/jsonrpc')).toMatchObject({ url: 'https://agent.example/rpc', preferredTransport: 'JSONRPC' });
  });

  it('never offers v0.3 clients an interface that needs a tenant (v0.3 requests cannot carry one)', () => {
    const tenanted = withInterfaces([{ url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' }]);
    expect(withV03Discovery(tenanted, '/a2a/jsonrpc')).toBe(tenanted);
    const mixed = withInterfaces([
      { url: 'https://agent.example/t/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
      { url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
    expect(withV03Discovery(mixed, '/a2a/jsonrpc')).toMatchObject({ url: 'https://agent.example/a2a/jsonrpc', additionalInterfaces: [{ url: 'https://agent.example/a2a/jsonrpc' }] });
  });

  it('adds nothing when no interface speaks 0.3 (JSON-RPC off)', async () => {
    const card = withInterfaces(httpInterfaces('http://h'));
    expect(withV03Discovery(card, undefined)).toBe(card);
    server = await startServer({ ...V03, jsonRpcPath: false });
    const served = await fetchCard(server);
    expect(served.url).toBeUndefined();
    expect(served.protocolVersion).toBeUndefined();
  });
});

describe('a signed card', () => {
  it('is served exactly as given (no v0.3 fields, no interfaces filled in by serveA2A) and verifies after the fetch', async () => {
    const { privateKey, publicKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const plain = withInterfaces([{ url: 'https://agent.example/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(withV03Discovery(plain, '/a2a/jsonrpc')).toHaveProperty('url');
    const signed = await signAgentCard(plain, { privateKey, alg: 'ES256', kid: 'card-key' });
    expect(withV03Discovery(signed, '/a2a/jsonrpc')).toBe(signed);
    server = await startServer({ ...V03, card: signed });
    const response = await fetch(`${server.url}/.well-known/agent-card.json`);
    const text = await response.text();
    expect(text).toBe(JSON.stringify(signed));
    const served = JSON.parse(text) as AgentCard;
    expect(served).toEqual(signed);
    expect(await verifyAgentCard(served, { keys: ({ kid }) => (kid === 'card-key' ? publicKey : undefined) })).toMatchObject({ verified: true });
  });
});

describe('v0.3 discovery from the card alone', () => {
  it('a bare v0.3 client: fetch the card, POST message/send to card.url without A2A-Version', async () => {
    server = await startServer(V03);
    const card = await fetchCard(server);
    expect(card.preferredTransport).toBe('JSONRPC');
    const response = await fetch(card.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'v03',
        method: 'message/send',
        params: { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'echo found you' }] } },
      }),
    });
    const { result } = await response.json();
    expect(result).toMatchObject({ kind: 'task', status: { state: 'completed', message: { kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'found you' }] } } });
  });

  it("@a2a-js/sdk's v0.3 card parser and v0.3 JSON-RPC transport reach the agent; its v1.0 resolver still reads supportedInterfaces", async () => {
    server = await startServer(V03);
    const raw = await fetchCard(server);
    // a2a-js reads a card carrying both shapes as v1.0 ...
    expect(isLegacyAgentCard(raw)).toBe(false);
    const resolved = new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }).normalizeAgentCard(raw);
    expect(resolved.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '1.0']);
    // ... and its v0.3 parser, which sees only the v0.3 fields, finds the v0.3 JSON-RPC interface.
    const legacy = parseLegacyAgentCard(raw);
    expect(legacy.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['JSONRPC', server.rpcUrl, '0.3.0'],
      ['JSONRPC', server.rpcUrl, '0.3'],
    ]);
    const legacyCompat = { enabled: true };
    const options = { transports: [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })] };
    const client = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, options)).createFromAgentCard(legacy);
    expect([client.transport.protocolName, client.transport.protocolVersion]).toEqual(['JSONRPC', '0.3']);
    const request = SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo legacy' }] } });
    const task = (await client.sendMessage(request)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.status?.message?.parts[0]?.content).toEqual({ $case: 'text', value: 'legacy' });
  });
});
