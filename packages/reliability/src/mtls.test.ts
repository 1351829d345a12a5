import { request } from 'node:https';
import * as grpc from '@grpc/grpc-js';
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
import { makeTestCerts } from './auth/test-certs.js';
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

let certs: TestCerts;
let service: TaskService;
let https: A2AServer;
let grpcServer: GrpcServerHandle;
let ws: WebSocketEndpoint;
beforeAll(async () => {
  certs = await makeTestCerts();
  const base = referenceAgentCard([]);
  const card: AgentCard = { ...base, ...cardSecurity({ mtls: { description: 'a client certificate from the Taskwire test CA' } }) };
  service = new TaskService({ store: createMemoryTaskStore(), agent: whoAmI, card, authorize: scopePolicy() });
  const auth = { authenticate: mtlsAuth({ scopes: ['tasks:read', 'tasks:write'] }) };
  https = await serveA2A({ service, auth, tls: { key: certs.server.key, cert: certs.server.cert, ca: certs.ca, requestCert: true, rejectUnauthorized: true } });
  ws = attachWebSocket({ server: https.server, service, auth });
  const credentials = grpc.ServerCredentials.createSsl(Buffer.from(certs.ca), [{ private_key: Buffer.from(certs.server.key), cert_chain: Buffer.from(certs.server.cert) }], true);
  grpcServer = await serveGrpc({ service, auth, credentials });
});
afterAll(async () => {
  await ws?.close(500);
  await Promise.all([https?.close(), grpcServer?.close(500)]);
  await service?.close();
});

type Wire = 'JSON-RPC over HTTPS' | 'gRPC over TLS' | 'WebSocket over TLS';
function connect(wire: Wire, client: KeyPair): Transport {
  switch (wire) {
    case 'JSON-RPC over HTTPS':
      return jsonRpcTransport({ url: `${https.url}/a2a/jsonrpc`, fetch: mtlsFetch(certs.ca, client) });
    case 'gRPC over TLS':
      return grpcTransport({ url: grpcServer.url, credentials: grpc.credentials.createSsl(Buffer.from(certs.ca), Buffer.from(client.key), Buffer.from(client.cert)) });
    case 'WebSocket over TLS': {
      const tls = { ca: certs.ca, ...client };
      const WithCert = class extends WebSocket {
        constructor(url: string, init?: object) {
          super(url, { ...init, ...tls });
        }
      };
      return wsTransport({ url: `${https.url.replace(/^https/, 'wss')}/a2a/ws`, WebSocket: WithCert as never, retryDelayMs: () => 1_000, connectTimeoutMs: 1_500 });
    }
  }
}

const ask = async (transport: Transport) => {
  const result = await transport.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'who am I?' }] } });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
};

describe.each(['JSON-RPC over HTTPS', 'gRPC over TLS', 'WebSocket over TLS'] as const)('mutual TLS: %s', (wire) => {
  it('the principal is the certificate SAN URI (alice) or its subject CN (bob, no SAN), and tasks are theirs alone', async () => {
    const alice = connect(wire, certs.alice);
    const bob = connect(wire, certs.bob);
    try {
      const task = await ask(alice);
      expect(task.status.message?.parts[0]).toMatchObject({ text: 'you are spiffe://taskwire.test/alice' });
      expect((await ask(bob)).status.message?.parts[0]).toMatchObject({ text: 'you are bob' });
      expect(await failureOf(bob.unary('GetTask', { id: task.id }))).toBe('TaskNotFound');
      expect((await alice.unary('GetTask', { id: task.id })).id).toBe(task.id);
    } finally {
      await Promise.all([alice.close?.(), bob.close?.()]);
    }
  });

  it('a certificate from a CA the server does not trust cannot call at all', async () => {
    const stranger = connect(wire, certs.stranger);
    try {
      const failure = await failureOf(stranger.unary('ListTasks', {}));
      expect(failure).not.toMatch(/^success/);
      expect(failure).not.toBe('TaskNotFound');
    } finally {
      await stranger.close?.();
    }
  });
});

it('the card served over HTTPS names the mtls scheme', async () => {
  const card = (await (await mtlsFetch(certs.ca, certs.alice)(`${https.url}/.well-known/agent-card.json`)).json()) as AgentCard;
  expect(card.securitySchemes).toEqual({ mtls: { mtlsSecurityScheme: { description: 'a client certificate from the Taskwire test CA' } } });
  expect(card.securityRequirements).toEqual([{ schemes: { mtls: { list: [] } } }]);
  // A stranger's certificate fails the TLS handshake: no HTTP answer at all, not even the public card.
  await expect(mtlsFetch(certs.ca, certs.stranger)(`${https.url}/.well-known/agent-card.json`)).rejects.toThrow();
});
