// Serves a TaskService on every Taskwire transport (HTTP: JSON-RPC + HTTP+JSON,
// WebSocket on the same port, gRPC on its own), for the client's integration tests.
import type { AgentCard, AgentInterface, AuthPolicy, TaskService } from '@taskwire/core';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { attachWebSocket, WS_PROTOCOL_BINDING, wsInterface } from '@taskwire/server-ws';
import type { TransportRegistry } from '../src/agent-card.js';
import { withBearerToken } from '../src/auth/bearer-transport.js';
import { grpcTransport } from '../src/grpc.js';
import { wsTransport } from '../src/ws.js';

export { WS_PROTOCOL_BINDING };

/** Every binding the reference agent is served on, in the card's order. */
export const BINDINGS = ['JSONRPC', 'HTTP+JSON', 'GRPC', WS_PROTOCOL_BINDING] as const;

/** A running set of servers for one service. */
export interface Served {
  /** The HTTP base URL (the agent card is at its well-known path). */
  readonly url: string;
  readonly card: AgentCard;
  /** The gRPC endpoint (`host:port`): another origin, to list in `trustedOrigins` when calling it with credentials. */
  readonly grpcUrl: string;
  close(): Promise<void>;
}

/** Options of {@link serveEverywhere}. */
export interface ServeOptions {
  readonly auth?: AuthPolicy;
  /** Sent as `tenant` in every interface of the card. */
  readonly tenant?: string;
  /** Changes the interfaces the card lists (e.g. to announce v0.3). */
  readonly interfaces?: (all: AgentInterface[]) => AgentInterface[];
}

/** Serves `service` over JSON-RPC, HTTP+JSON, WebSocket and gRPC on free ports of 127.0.0.1. */
export async function serveEverywhere(service: TaskService, options: ServeOptions = {}): Promise<Served> {
  const grpc = await serveGrpc({ service, ...(options.auth && { auth: options.auth }) });
  let card!: AgentCard;
  const http = await serveA2A({
    service,
    ...(options.auth && { auth: options.auth }),
    card: (base) => {
      const all = [...httpInterfaces(base), grpcInterface(grpc.url), wsInterface(`${base.replace(/^http/, 'ws')}/a2a/ws`)].map((i) =>
        options.tenant ? { ...i, tenant: options.tenant } : i,
      );
      card = { ...service.card!, supportedInterfaces: options.interfaces ? options.interfaces(all) : all };
      return card;
    },
  });
  const ws = attachWebSocket({ service, server: http.server, ...(options.auth && { auth: options.auth }) });
  return {
    url: http.url,
    card,
    grpcUrl: grpc.url,
    async close() {
      await ws.close();
      await http.close();
      await grpc.close();
    },
  };
}

/** Factories for the Node-only transports (the fetch ones are built in). */
export const NODE_TRANSPORTS: TransportRegistry = {
  GRPC: (t) => withBearerToken(grpcTransport({ url: t.url, ...(t.headers && { metadata: t.headers }) }), t.token),
  [WS_PROTOCOL_BINDING]: (t) => wsTransport({ url: t.url, ...(t.headers && { headers: t.headers }), ...(t.token && { token: t.token }) }),
};
