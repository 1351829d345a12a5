// Test helpers (not exported by the package): the scripted mock model of
// ./testing.ts, and an agent served on real JSON-RPC and gRPC servers.
import type { A2AClient, TransportRegistry } from '@taskwire/client';
import { createClient, DEFAULT_TRANSPORTS } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import type { Agent, AgentCard, Message, TaskServiceOptions, TaskStore } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import type { GrpcServerHandle } from '@taskwire/server-grpc';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import type { A2AServer } from '@taskwire/server-http';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';

export * from './testing.js';

/** A user message with a fresh id. */
export function userMessage(textOrParts: string | Message['parts'], extra: Partial<Message> = {}): Message {
  const parts = typeof textOrParts === 'string' ? [{ text: textOrParts }] : textOrParts;
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...extra };
}

/** A card for a test agent; the servers fill in the interfaces. */
export function testCard(name: string, streaming = true): AgentCard {
  return {
    name,
    description: `The ${name} test agent`,
    supportedInterfaces: [],
    version: '0.0.1',
    capabilities: { streaming, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'talk', name: 'Talk', description: 'Talks', tags: ['test'] }],
  };
}

/** The transports of the tests: the defaults and gRPC. */
export const TRANSPORTS: TransportRegistry = { ...DEFAULT_TRANSPORTS, GRPC: (t) => grpcTransport({ url: t.url }) };

/** The bindings the end-to-end tests run over. */
export const BINDINGS = ['JSONRPC', 'GRPC'] as const;

/** An agent served on JSON-RPC/HTTP+JSON (one HTTP server) and gRPC, its card listing both. */
export interface Served {
  readonly service: TaskService;
  readonly store: TaskStore;
  readonly http: A2AServer;
  readonly grpc: GrpcServerHandle;
  /** A client that talks to it over `binding` (closed with the servers). */
  client(binding: string): Promise<A2AClient>;
  close(): Promise<void>;
}

/** Serves `agent` on real servers at 127.0.0.1 (free ports). */
export async function serve(agent: Agent, card: AgentCard, options: Partial<TaskServiceOptions> = {}): Promise<Served> {
  const store = options.store ?? createMemoryTaskStore();
  const service = new TaskService({ ...options, store, agent, card });
  const grpc = await serveGrpc({ service });
  const http = await serveA2A({ service, card: (base) => ({ ...card, supportedInterfaces: [...httpInterfaces(base), grpcInterface(grpc.url)] }) });
  const clients: A2AClient[] = [];
  return {
    service,
    store,
    http,
    grpc,
    async client(binding) {
      const client = await createClient(http.url, { preferred: [binding], transports: TRANSPORTS });
      if (client.interface?.protocolBinding !== binding) throw new Error(`createClient picked ${client.interface?.protocolBinding}, not ${binding}`);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await http.close();
      await grpc.close(0);
      await service.close();
    },
  };
}
