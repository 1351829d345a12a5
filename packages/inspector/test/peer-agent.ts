// An agent on the official @a2a-js/sdk server (express for JSON-RPC and
// HTTP+JSON, its card at the well-known path, and with `allTransports` its
// gRPC service), running the benchmark peer's executor: `echo <x>` and
// `slow <n> [<ms>]`, as the reference agent does.
import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import { peerCard, peerExecutor } from '../../../bench/src/http-peer-agent.js';

// No express typings here; this is the part of express used.
type ExpressApp = RequestListener & { use(path: string, handler: unknown): void };
const require = createRequire(import.meta.url);
const express = require('express') as () => ExpressApp;
// The SDK's own @grpc/grpc-js (the inspector does not depend on it), so that its service fits the server.
interface GrpcServer {
  addService(service: unknown, implementation: unknown): void;
  bindAsync(address: string, credentials: unknown, done: (error: Error | null, port: number) => void): void;
  tryShutdown(done: () => void): void;
}
const grpc = createRequire(require.resolve('@a2a-js/sdk/server/grpc'))('@grpc/grpc-js') as { Server: new () => GrpcServer; ServerCredentials: { createInsecure(): unknown } };

/** A running @a2a-js/sdk agent. */
export interface PeerAgent {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the peer on free ports of 127.0.0.1. Its card lists JSON-RPC
 * (v1.0); with `allTransports`, HTTP+JSON and gRPC (on a port of its own)
 * too, each served by the SDK.
 */
export async function startPeerAgent(options: { allTransports?: boolean } = {}): Promise<PeerAgent> {
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = peerCard(`${url}/a2a/jsonrpc`);
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), peerExecutor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const closeHttp = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  if (!options.allTransports) return { url, close: closeHttp };
  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  card.supportedInterfaces.push(
    { url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    { url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  );
  return {
    url,
    async close() {
      await closeHttp();
      await new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve()));
    },
  };
}
