// Credentials go only to the origin the user gave and to trustedOrigins: real servers on 127.0.0.1
// (each port an origin), a card on A naming B, redirects from A to C, and a card served over https.
import type { AgentCard, AgentInterface } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialOriginError } from '../src/auth/origins.js';
import { clientCredentials, staticToken } from '../src/auth/token-provider.js';
import { createClient } from '../src/create-client.js';
import type { CreateClientOptions } from '../src/create-client.js';
import { apiKeyInterceptor } from '../src/interceptors.js';
import type { Origin } from './origin-servers.js';
import { carried, emptyListTasks, json, origin, redirect, runCli, selfSignedCert } from './origin-servers.js';
import type { Served } from './serve-reference.js';
import { NODE_TRANSPORTS, serveEverywhere, WS_PROTOCOL_BINDING } from './serve-reference.js';

const KEY = 'k-secret-0123';
let service: TaskService;
/** B: the reference agent on every transport, recording the headers of every call it authenticates. */
let b: Served;
const bSeen: { headers: Readonly<Record<string, string | undefined>> }[] = [];
/** A: the origin the user names; it serves `cardOnA` and a few routes. */
let a: Origin;
let cardOnA: AgentCard;
/** C: another origin that redirects from A lead to. */
let c: Origin;

beforeAll(async () => {
  const card = referenceAgentCard([{ url: 'memory://b', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
  const record = { authenticate: (request: { headers: Readonly<Record<string, string | undefined>> }) => void bSeen.push({ headers: request.headers }), required: false };
  b = await serveEverywhere(service, { auth: record });
  c = await origin((request, response) => {
    if (request.path === '/card.json') json(response, { ...b.card, supportedInterfaces: [{ url: `${c.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    else if (request.path === '/a2a/jsonrpc') emptyListTasks(request, response);
    else json(response, { access_token: 'stolen', expires_in: 60 });
  });
  a = await origin((request, response) => {
    if (request.path === '/.well-known/agent-card.json') json(response, cardOnA);
    else if (request.path === '/moved/card.json') redirect(response, 302, `${c.url}/card.json`);
    else if (request.path === '/old/jsonrpc') redirect(response, 307, '/a2a/jsonrpc');
    else if (request.path === '/away/jsonrpc') redirect(response, 307, `${c.url}/a2a/jsonrpc`);
    else if (request.path === '/token') redirect(response, 307, `${c.url}/token`);
    else emptyListTasks(request, response);
  });
});
afterAll(async () => {
  await Promise.all([a?.close(), c?.close(), b?.close()]);
  await service?.close();
});
beforeEach(() => {
  bSeen.length = 0;
  a.seen.length = 0;
  c.seen.length = 0;
});

const onB = (binding: string): AgentInterface => b.card.supportedInterfaces.find((i) => i.protocolBinding === binding)!;
const onA = (path: string): AgentInterface => ({ url: `${a.url}${path}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
const withInterfaces = (...interfaces: AgentInterface[]): AgentCard => ({ ...b.card, supportedInterfaces: interfaces });
const connect = (options: CreateClientOptions, url = a.url) => createClient(url, { transports: NODE_TRANSPORTS, retry: false, ...options });

const CASES: readonly [string, () => AgentInterface, () => string][] = [
  ['JSON-RPC', () => onB('JSONRPC'), () => b.url],
  ['HTTP+JSON', () => onB('HTTP+JSON'), () => b.url],
  ['gRPC', () => onB('GRPC'), () => b.grpcUrl],
  ['WebSocket', () => onB(WS_PROTOCOL_BINDING), () => b.url],
  ['JSON-RPC v0.3', () => ({ ...onB('JSONRPC'), protocolVersion: '0.3' }), () => b.url],
];

describe.each(CASES)('a card on origin A naming a %s interface on origin B', (_name, iface, trusted) => {
  beforeEach(() => {
    cardOnA = withInterfaces(iface());
  });

  it.each([
    ['an API key', { headers: { 'x-api-key': KEY } }],
    ['a bearer token', { auth: staticToken(KEY) }],
    ['a custom auth header', { headers: { 'x-tenant-secret': KEY } }],
  ] as const)('with %s: createClient refuses, naming trustedOrigins, and B receives nothing', async (_what, credentials) => {
    const error = await connect(credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialOriginError);
    expect((error as Error).message).toContain('trustedOrigins');
    expect(bSeen).toEqual([]);
    expect(a.seen.length).toBe(1);
  });

  it('a credential added by an interceptor is refused at the call, before B sees it', async () => {
    const client = await connect({ interceptors: [apiKeyInterceptor(KEY)] });
    try {
      await expect(client.listTasks({})).rejects.toBeInstanceOf(CredentialOriginError);
      expect(bSeen.filter(carried)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('listed in trustedOrigins, B receives the credentials', async () => {
    const client = await connect({ headers: { 'x-api-key': KEY }, trustedOrigins: [trusted()] });
    try {
      expect((await client.listTasks({})).tasks).toBeDefined();
      expect(bSeen.some((r) => r.headers['x-api-key'] === KEY)).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('without credentials, B is called bare', async () => {
    const client = await connect({});
    try {
      expect((await client.listTasks({})).tasks).toBeDefined();
      expect(bSeen.length).toBeGreaterThan(0);
      expect(bSeen.filter(carried)).toEqual([]);
    } finally {
      await client.close();
    }
  });
});

describe('choosing an interface with credentials', () => {
  it('skips an interface on another origin for one on the origin given', async () => {
    cardOnA = withInterfaces(onB('JSONRPC'), onA('/a2a/jsonrpc'));
    const client = await connect({ headers: { 'x-api-key': KEY } });
    try {
      expect(client.interface?.url).toBe(`${a.url}/a2a/jsonrpc`);
      await client.listTasks({});
      expect(a.seen.filter((r) => r.method === 'POST' && r.headers['x-api-key'] === KEY).length).toBe(1);
      expect(bSeen).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses a preferred binding offered only on another origin rather than talk another one', async () => {
    cardOnA = withInterfaces(onB('GRPC'), onA('/a2a/jsonrpc'));
    const error = await connect({ headers: { 'x-api-key': KEY }, preferred: ['GRPC'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialOriginError);
    expect((error as Error).message).toContain(`--trust-origin http://${b.grpcUrl}`);
  });
});

describe('redirects', () => {
  it('a card fetch redirected (302) to another origin: refused with credentials, followed bare without, with them when trusted', async () => {
    const moved = `${a.url}/moved/card.json`;
    await expect(connect({ headers: { 'x-api-key': KEY } }, moved)).rejects.toBeInstanceOf(CredentialOriginError);
    expect(c.seen).toEqual([]);
    const bare = await connect({}, moved);
    await bare.listTasks({});
    expect(c.seen.map((r) => r.path)).toEqual(['/card.json', '/a2a/jsonrpc']);
    expect(c.seen.filter(carried)).toEqual([]);
    c.seen.length = 0;
    const trusting = await connect({ headers: { 'x-api-key': KEY }, trustedOrigins: [c.url] }, moved);
    await trusting.listTasks({});
    expect(c.seen.map((r) => r.headers['x-api-key'])).toEqual([KEY, KEY]);
  });

  it('a 307 on a JSON-RPC POST to another origin: refused with credentials, followed bare without', async () => {
    cardOnA = withInterfaces(onA('/away/jsonrpc'));
    const keyed = await connect({ headers: { 'x-api-key': KEY } });
    await expect(keyed.listTasks({})).rejects.toBeInstanceOf(CredentialOriginError);
    expect(c.seen).toEqual([]);
    const tokened = await connect({ auth: staticToken(KEY) });
    await expect(tokened.listTasks({})).rejects.toBeInstanceOf(CredentialOriginError);
    expect(c.seen).toEqual([]);
    const bare = await connect({});
    await bare.listTasks({});
    expect(c.seen.length).toBe(1);
    expect(c.seen[0]!.method).toBe('POST');
    expect(carried(c.seen[0]!)).toBe(false);
  });

  it('a same-origin 307 is followed with the credentials, the method and the body', async () => {
    cardOnA = withInterfaces(onA('/old/jsonrpc'));
    const client = await connect({ headers: { 'x-api-key': KEY } });
    await client.listTasks({});
    const moved = a.seen.find((r) => r.path === '/a2a/jsonrpc');
    expect(moved?.method).toBe('POST');
    expect(moved?.headers['x-api-key']).toBe(KEY);
    expect(JSON.parse(moved!.body).method).toBe('ListTasks');
  });

  it('the client secret of clientCredentials follows no redirect to another origin', async () => {
    const provider = clientCredentials({ clientId: 'app', clientSecret: 'secret-xyz', tokenUrl: `${a.url}/token` });
    await expect(provider.token()).rejects.toBeInstanceOf(CredentialOriginError);
    expect(c.seen).toEqual([]);
  });
});

describe('the taskwire CLI (a real process)', () => {
  it('--token and --api-key never reach another origin; a card fetched over https never sends them over http or plaintext gRPC', async () => {
    cardOnA = withInterfaces(onB('JSONRPC'));
    const token = await runCli(['list', a.url, '--token', KEY]);
    expect(token.code).toBe(3);
    expect(token.err).toContain(`--trust-origin ${b.url}`);
    expect(bSeen).toEqual([]);

    const tls = await selfSignedCert();
    const secure = await origin((request, response) => json(response, withInterfaces(onA('/a2a/jsonrpc'), onB('GRPC'))), tls);
    try {
      const env = { NODE_EXTRA_CA_CERTS: tls.certFile };
      const downgraded = await runCli(['list', secure.url, '--api-key', KEY], env);
      expect(downgraded.code).toBe(3);
      expect(downgraded.err).toContain('over plaintext');
      expect(a.seen.filter((r) => r.method === 'POST')).toEqual([]);
      expect(bSeen).toEqual([]);
      expect(secure.seen.map((r) => r.headers['x-api-key'])).toEqual([KEY]);
      const grpc = await runCli(['list', secure.url, '--api-key', KEY, '--transport', 'grpc'], env);
      expect(grpc.code).toBe(3);
      expect(bSeen).toEqual([]);
    } finally {
      await secure.close();
      await tls.dispose();
    }
  }, 60_000);
});
