// Test support: one executor served by the @a2a-js/sdk server (express,
// JSON-RPC and HTTP+JSON) and, through fromA2AExecutor, by Taskwire
// (JSON-RPC, HTTP+JSON and gRPC); clients of both SDKs for either.
import type { Server as HttpServer, RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { AgentCard as JsAgentCard } from '@a2a-js/sdk';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { Client as JsClient } from '@a2a-js/sdk/client';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import type { AgentExecutor } from '@a2a-js/sdk/server';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { A2AClient } from '@taskwire/client';
import { createClient, DEFAULT_TRANSPORTS } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import type { AgentCard, TaskServiceOptions } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import type { FromA2AExecutorOptions } from '../src/index.js';
import { fromA2AExecutor } from '../src/index.js';

/** The little of express these tests use (express ships no types of its own). */
interface ExpressApp extends RequestListener {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, done: (error?: Error) => void): HttpServer;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

/** A card for the executor under test; each server fills in its interfaces. */
export function card(name: string): AgentCard {
  return {
    name,
    description: `${name}, an @a2a-js/sdk executor`,
    supportedInterfaces: [],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'talk', name: 'Talk', description: 'Talks', tags: ['sample'] }],
  };
}

/** A server of one executor, with clients of both SDKs. */
export interface Served {
  readonly url: string;
  /** The @a2a-js/sdk client, over `binding`. */
  jsClient(binding: 'JSONRPC' | 'HTTP+JSON'): Promise<JsClient>;
  close(): Promise<void>;
}

/** A Taskwire server of an executor: also has Taskwire's clients (gRPC too) and the service. */
export interface TaskwireServed extends Served {
  readonly service: TaskService;
  client(binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'): Promise<A2AClient>;
}

const jsClientOf = (url: string) => async (binding: 'JSONRPC' | 'HTTP+JSON') => {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
  const client = await factory.createFromUrl(url);
  if (client.transport.protocolName !== binding) throw new Error(`the a2a-js client picked ${client.transport.protocolName}, not ${binding}`);
  return client;
};

/** Serves `executor` on the @a2a-js/sdk 1.3.0 server (express), as its users do. */
export async function serveOnA2AJs(executor: AgentExecutor, agentCard: AgentCard): Promise<Served> {
  const jsCard = { ...agentCard, supportedInterfaces: [] as unknown[], securitySchemes: {}, securityRequirements: [], signatures: [], capabilities: { ...agentCard.capabilities, extensions: agentCard.capabilities.extensions ?? [] } } as unknown as JsAgentCard;
  const requestHandler = new DefaultRequestHandler(jsCard, new InMemoryTaskStore(), executor);
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  jsCard.supportedInterfaces.push(
    { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  );
  return {
    url,
    jsClient: jsClientOf(url),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Serves `executor` on Taskwire through {@link fromA2AExecutor}: JSON-RPC and HTTP+JSON on one port, gRPC on another. */
export async function serveOnTaskwire(
  executor: AgentExecutor,
  agentCard: AgentCard,
  options: { adapter?: FromA2AExecutorOptions; service?: Partial<TaskServiceOptions> } = {},
): Promise<TaskwireServed> {
  const service = new TaskService({ store: createMemoryTaskStore(), ...options.service, agent: fromA2AExecutor(executor, options.adapter), card: agentCard });
  const grpc = await serveGrpc({ service });
  const http = await serveA2A({ service, card: (base) => ({ ...agentCard, supportedInterfaces: [...httpInterfaces(base), grpcInterface(grpc.url)] }) });
  const clients: A2AClient[] = [];
  return {
    url: http.url,
    service,
    jsClient: jsClientOf(http.url),
    async client(binding) {
      const client = await createClient(http.url, { preferred: [binding], transports: { ...DEFAULT_TRANSPORTS, GRPC: (t) => grpcTransport({ url: t.url }) } });
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
