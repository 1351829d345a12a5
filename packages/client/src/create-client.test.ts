import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransportRegistry, TransportTarget } from './agent-card.js';
import { agentCardUrl, fetchAgentCard, parseAgentCard, selectInterface } from './agent-card.js';
import { createClient } from './create-client.js';
import { referenceService, serviceTransport } from '../test/support.js';

const service = referenceService();
const servers: Server[] = [];
afterEach(async () => {
  await service.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const card = (interfaces: AgentCard['supportedInterfaces'], streaming = true): AgentCard => ({
  name: 'fake',
  description: 'a fake agent',
  version: '1',
  supportedInterfaces: interfaces,
  capabilities: { streaming },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** Factories that record the target they were asked for and answer with the in-memory transport. */
function fakeRegistry(bindings: readonly string[], made: TransportTarget[], speaks: (t: TransportTarget) => boolean = () => true): TransportRegistry {
  return Object.fromEntries(bindings.map((b) => [b, (t: TransportTarget) => (speaks(t) ? (made.push(t), serviceTransport(service)) : undefined)]));
}

const ifaces: AgentCard['supportedInterfaces'] = [
  { url: 'grpc://agent:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
  { url: 'https://agent/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
  { url: 'https://agent/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
];

describe('selectInterface', () => {
  it('picks the first interface of the card that has a factory, echoing its tenant', () => {
    const made: TransportTarget[] = [];
    const picked = selectInterface(card(ifaces), fakeRegistry(['JSONRPC', 'HTTP+JSON'], made));
    expect(picked.iface.protocolBinding).toBe('HTTP+JSON');
    expect(made).toEqual([{ url: 'https://agent/a2a/rest', binding: 'HTTP+JSON', tenant: 'acme', version: '1.0', fetch: undefined, headers: undefined }]);
  });

  it('follows the caller’s preference order, then the card’s', () => {
    const registry = fakeRegistry(['JSONRPC', 'HTTP+JSON', 'GRPC'], []);
    expect(selectInterface(card(ifaces), registry).iface.protocolBinding).toBe('GRPC');
    expect(selectInterface(card(ifaces), registry, { preferred: ['JSONRPC'] }).iface.protocolBinding).toBe('JSONRPC');
    expect(selectInterface(card(ifaces), registry, { preferred: ['WEBSOCKET', 'HTTP+JSON'] }).iface.protocolBinding).toBe('HTTP+JSON');
  });

  it('skips interfaces whose version no factory speaks, and versions nobody speaks', () => {
    const made: TransportTarget[] = [];
    const mixed = card([
      { url: 'https://old/a2a', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      { url: 'https://future/a2a', protocolBinding: 'JSONRPC', protocolVersion: '2.0' },
      { url: 'https://old/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
    ]);
    const picked = selectInterface(mixed, fakeRegistry(['JSONRPC', 'HTTP+JSON'], made, (t) => t.binding === 'JSONRPC'));
    expect(picked.iface.url).toBe('https://old/jsonrpc');
    expect(picked.version).toBe('0.3');
  });

  it('gives a 1.1 interface a 1.1 target with a2a-version 1.1; a 1.0-only factory speaks it as 1.0; pinned, 1.x interfaces speak the pin', () => {
    const next = card([{ url: 'https://agent/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.1' }]);
    const made: TransportTarget[] = [];
    expect(selectInterface(next, fakeRegistry(['JSONRPC'], made), { headers: { 'x-api-key': 'k' } }).version).toBe('1.1');
    expect(made[0]!.headers).toEqual({ 'a2a-version': '1.1', 'x-api-key': 'k' });
    const onlyOne: TransportTarget[] = [];
    expect(selectInterface(next, fakeRegistry(['JSONRPC'], onlyOne, (t) => t.version === '1.0')).version).toBe('1.0');
    expect(onlyOne[0]!.headers).toBeUndefined();
    expect(selectInterface(next, fakeRegistry(['JSONRPC'], []), { version: '1.0' }).version).toBe('1.0');
    expect(selectInterface(card(ifaces), fakeRegistry(['GRPC'], []), { version: '1.1' }).version).toBe('1.1');
    const old = card([{ url: 'https://old/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]);
    expect(selectInterface(old, fakeRegistry(['JSONRPC'], []), { version: '1.1' }).version).toBe('0.3');
  });

  it('fails with what the card offers and what is registered', () => {
    expect(() => selectInterface(card([ifaces[0]!]), fakeRegistry(['JSONRPC'], []))).toThrow(
      /No transport for any interface of agent "fake" \(it offers: GRPC 1.0 at grpc:\/\/agent:50051; registered: JSONRPC\)\. Register a factory/,
    );
  });
});

describe('agent cards', () => {
  it('are looked for at the well-known path of the URL’s origin', () => {
    expect(agentCardUrl('https://agent.example/a2a/jsonrpc')).toBe('https://agent.example/.well-known/agent-card.json');
    expect(agentCardUrl('https://agent.example/cards/mine.json')).toBe('https://agent.example/cards/mine.json');
  });

  it('a v0.3 card is read as v1.0 interfaces with version 0.3', () => {
    const parsed = parseAgentCard({
      name: 'old',
      description: '',
      version: '1',
      protocolVersion: '0.3.0',
      url: 'https://old/a2a',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://old/rest', transport: 'HTTP+JSON' }],
      capabilities: { streaming: false },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
    expect(parsed.supportedInterfaces).toEqual([
      { url: 'https://old/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://old/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
  });

  it('a card without usable interfaces is refused with the bad field', () => {
    expect(() => parseAgentCard({ name: 'x', supportedInterfaces: [{ url: 'u' }] })).toThrow(/supportedInterfaces\[0\]\.protocolBinding/);
    expect(() => parseAgentCard('nope')).toThrow(/not a JSON object/);
  });

  it('are fetched over HTTP, with the caller’s headers, and HTTP errors say where to look', async () => {
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers['x-api-key'] as string | undefined);
      if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(ifaces)));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const fetched = await fetchAgentCard(`${base}/a2a/jsonrpc`, { headers: { 'x-api-key': 'k' } });
    expect(fetched.name).toBe('fake');
    expect(seen).toEqual(['k']);
    await expect(fetchAgentCard(`${base}/cards/missing.json`)).rejects.toThrow(/answered HTTP 404; check the URL/);
  });
});

describe('createClient', () => {
  it('reads the card, selects an interface, and sends its tenant with every request', async () => {
    const made: TransportTarget[] = [];
    const client = await createClient('https://agent/', { card: card(ifaces), transports: fakeRegistry(['HTTP+JSON'], made) });
    expect(client.tenant).toBe('acme');
    expect(client.version).toBe('1.0');
    expect(client.card?.name).toBe('fake');
    const reply = await client.conversation().send('echo via the selected interface');
    expect(reply.text).toBe('via the selected interface');
    expect((await client.listTasks()).tasks).toHaveLength(1);
  });

  it('marks a v0.3 interface so the client speaks v0.3, and polls an agent that does not stream', async () => {
    const made: TransportTarget[] = [];
    const client = await createClient('https://old/', {
      card: { ...card([{ url: 'https://old/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }], false) },
      transports: fakeRegistry(['JSONRPC'], made),
    });
    expect(made[0]!.version).toBe('0.3');
    expect(client.version).toBe('0.3');
    expect(client.streams).toBe(false);
  });
});
