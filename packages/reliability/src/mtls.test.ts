import { request } from 'node:https';
import * as grpc from '@grpc/grpc-js';
import type { MtlsAuthOptions } from '@taskwire/auth';
import { cardSecurity, mtlsAuth, scopePolicy } from '@taskwire/auth';
import { jsonRpcTransport } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import { wsTransport } from '@taskwire/client/ws';
import type { Agent, AgentCard, Transport } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import type { GrpcServerHandle } from '@taskwire/server-grpc';
import { serveGrpc } from '@taskwire/server-grpc';
import type { A2AServer } from '@taskwire/server-http';
import { serveA2A } from '@taskwire/server-http';
import type { WebSocketEndpoint } from '@taskwire/server-ws';
import { attachWebSocket } from '@taskwire/server-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { KeyPair, TestCerts } from './auth/test-certs.js';
import { ALICE_ID, makeTestCerts } from './auth/test-certs.js';
import { failureOf } from './auth/two-principals.js';

/** Answers with the id of the principal the transport established. */
const whoAmI: Agent = async ({ principal, complete }) => complete(`you are ${principal?.id ?? 'nobody'}`);

/** A `fetch` over node:https presenting `client` (Node's own fetch cannot send a client certificate). */
function mtlsFetch(ca: string, client: KeyPair | undefined): typeof fetch {
  return (input, init) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
      const req = request(String(input), { method: init?.method ?? 'GET', headers, ca, ...client }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: res.headers as Record<string, string> })));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init?.body as string | undefined);
    });
}

/** HTTPS (JSON-RPC), WSS on the same server, and gRPC over TLS, all requiring client certificates from the test CA. */
interface Hosts {
  readonly https: A2AServer;
  readonly grpc: GrpcServerHandle;
  readonly ws: WebSocketEndpoint;
  close(): Promise<void>;
}

async function startHosts(certs: TestCerts, principal: MtlsAuthOptions['principal']): Promise<Hosts> {
  const base = referenceAgentCard([]);
  const card: AgentCard = { ...base, ...cardSecurity({ mtls: { description: 'a client certificate from the Taskwire test CA' } }) };
  const service = new TaskService({ store: createMemoryTaskStore(), agent: whoAmI, card, authorize: scopePolicy() });
  const auth = { authenticate: mtlsAuth({ principal, scopes: ['tasks:read', 'tasks:write'] }) };
  const https = await serveA2A({ service, auth, tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca, requestCert: true, rejectUnauthorized: true } });
  const ws = attachWebSocket({ server: https.server, service, auth });
  const credentials = grpc.ServerCredentials.createSsl(Buffer.from(certs.ca), [{ private_key: Buffer.from(certs.server.key), cert_chain: Buffer.from(certs.server.cert) }], true);
  const grpcServer = await serveGrpc({ service, auth, credentials });
  return {
    https,
    grpc: grpcServer,
    ws,
    async close() {
      await ws.close(500);
      await Promise.all([https.close(), grpcServer.close(500)]);
      await service.close();
    },
  };
}

let certs: TestCerts;
/** mtlsAuth() as it comes: the URI SAN names the caller. */
let byUri: Hosts;
/** mtlsAuth({ principal: 'san' }): URI SAN, DNS SAN or CN, each with its source. */
let bySan: Hosts;
beforeAll(async () => {
  certs = await makeTestCerts();
  byUri = await startHosts(certs, undefined);
  bySan = await startHosts(certs, 'san');
});
afterAll(async () => {
  await Promise.all([byUri?.close(), bySan?.close()]);
});

type Wire = 'JSON-RPC over HTTPS' | 'gRPC over TLS' | 'WebSocket over TLS';
function connect(wire: Wire, client: KeyPair, hosts: Hosts = byUri): Transport {
  switch (wire) {
    case 'JSON-RPC over HTTPS':
      return jsonRpcTransport({ url: `${hosts.https.url}/a2a/jsonrpc`, fetch: mtlsFetch(certs.ca, client) });
    case 'gRPC over TLS':
      return grpcTransport({ url: hosts.grpc.url, credentials: grpc.credentials.createSsl(Buffer.from(certs.ca), Buffer.from(client.key), Buffer.from(client.cert)) });
    case 'WebSocket over TLS': {
      const tls = { ca: certs.ca, ...client };
      const WithCert = class extends WebSocket {
        constructor(url: string, init?: object) {
          super(url, { ...init, ...tls });
        }
      };
      return wsTransport({ url: `${hosts.https.url.replace(/^https/, 'wss')}/a2a/ws`, WebSocket: WithCert as never, retryDelayMs: () => 1_000, connectTimeoutMs: 1_500 });
    }
  }
}

const ask = async (transport: Transport) => {
  const result = await transport.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'who am I?' }] } });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
};

/** Runs `body` with one transport per client certificate, closed afterwards. */
async function as<T>(wire: Wire, hosts: Hosts, clients: KeyPair[], body: (...transports: Transport[]) => Promise<T>): Promise<T> {
  const transports = clients.map((client) => connect(wire, client, hosts));
  try {
    return await body(...transports);
  } finally {
    await Promise.all(transports.map((t) => t.close?.()));
  }
}

describe.each(['JSON-RPC over HTTPS', 'gRPC over TLS', 'WebSocket over TLS'] as const)('mutual TLS: %s', (wire) => {
  it('by default the principal is the certificate URI SAN (alice), and tasks are hers alone; a certificate without one (bob) is refused', async () => {
    await as(wire, byUri, [certs.alice, certs.bob], async (alice, bob) => {
      const task = await ask(alice!);
      expect(task.status.message?.parts[0]).toMatchObject({ text: `you are ${ALICE_ID}` });
      expect((await alice!.unary('GetTask', { id: task.id })).id).toBe(task.id);
      expect(await failureOf(bob!.unary('ListTasks', {}))).toBe('Unauthenticated');
    });
  });

  it('a certificate from the trusted CA whose DNS SAN or CN spells alice SPIFFE id is not alice', async () => {
    const task = await as(wire, byUri, [certs.alice], (alice) => ask(alice!));
    await as(wire, byUri, [certs.eveDns, certs.eveCn], async (eveDns, eveCn) => {
      expect(await failureOf(eveDns!.unary('GetTask', { id: task.id }))).toBe('Unauthenticated');
      expect(await failureOf(eveCn!.unary('GetTask', { id: task.id }))).toBe('Unauthenticated');
    });
    const sanTask = await as(wire, bySan, [certs.alice], (alice) => ask(alice!));
    expect(sanTask.status.message?.parts[0]).toMatchObject({ text: `you are uri:${ALICE_ID}` });
    await as(wire, bySan, [certs.eveDns, certs.eveCn, certs.bob], async (eveDns, eveCn, bob) => {
      expect((await ask(eveDns!)).status.message?.parts[0]).toMatchObject({ text: `you are dns:${ALICE_ID}` });
      expect((await ask(eveCn!)).status.message?.parts[0]).toMatchObject({ text: `you are cn:${ALICE_ID}` });
      expect((await ask(bob!)).status.message?.parts[0]).toMatchObject({ text: 'you are cn:bob' });
      for (const eve of [eveDns!, eveCn!]) expect(await failureOf(eve.unary('GetTask', { id: sanTask.id }))).toBe('TaskNotFound');
    });
  });

  it('a URI SAN holding a comma is one name, read whole (not split into alice SPIFFE id)', async () => {
    const task = await as(wire, byUri, [certs.alice], (alice) => ask(alice!));
    await as(wire, byUri, [certs.comma], async (comma) => {
      expect((await ask(comma!)).status.message?.parts[0]).toMatchObject({ text: `you are spiffe://taskwire.test/x, URI:${ALICE_ID}` });
      expect(await failureOf(comma!.unary('GetTask', { id: task.id }))).toBe('TaskNotFound');
    });
  });

  it('a certificate from a CA the server does not trust cannot call at all', async () => {
    await as(wire, byUri, [certs.stranger], async (stranger) => {
      const failure = await failureOf(stranger!.unary('ListTasks', {}));
      expect(failure).not.toMatch(/^success/);
      expect(failure).not.toBe('TaskNotFound');
    });
  });
});

it('the card served over HTTPS names the mtls scheme', async () => {
  const card = (await (await mtlsFetch(certs.ca, certs.alice)(`${byUri.https.url}/.well-known/agent-card.json`)).json()) as AgentCard;
  expect(card.securitySchemes).toEqual({ mtls: { mtlsSecurityScheme: { description: 'a client certificate from the Taskwire test CA' } } });
  expect(card.securityRequirements).toEqual([{ schemes: { mtls: { list: [] } } }]);
  // A stranger's certificate fails the TLS handshake: no HTTP answer at all, not even the public card.
  await expect(mtlsFetch(certs.ca, certs.stranger)(`${byUri.https.url}/.well-known/agent-card.json`)).rejects.toThrow();
});
