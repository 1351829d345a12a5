// An agent on the official @a2a-js/sdk server (express, JSON-RPC and
// HTTP+JSON, its card at the well-known path), running the benchmark peer's
// executor: `echo <x>` and `slow <n> [<ms>]`, as the reference agent does.
import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { AGENT_CARD_PATH } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { peerRequestHandler } from '../../../bench/src/http-peer-agent.js';

// No express typings here; this is the part of express used.
type ExpressApp = RequestListener & { use(path: string, handler: unknown): void };
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

/** A running @a2a-js/sdk agent. */
export interface PeerAgent {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the peer on a free port of 127.0.0.1; its card lists JSON-RPC (v1.0). */
export async function startPeerAgent(): Promise<PeerAgent> {
  const app = express();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requestHandler = peerRequestHandler(`${url}/a2a/jsonrpc`);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}
