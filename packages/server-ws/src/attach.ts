import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { AuthPolicy, Logger, TaskService } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import { getWSConnectionHandler } from '@trpc/server/adapters/ws';
import type { WebSocket } from 'ws';
import { WebSocketServer } from 'ws';
import type { ConnectionLimits, ConnectionSlots } from './connection.js';
import { DEFAULT_LIMITS, guardConnection } from './connection.js';
import { closeCodeOf, closeReasonOf } from './close-codes.js';
import { createContextFactory } from './context.js';
import { isUnexpected } from './errors.js';
import { createA2ARouter } from './router.js';

/** The path the reference agent serves WebSocket on. */
export const DEFAULT_WS_PATH = '/a2a/ws';

/** Keep-alive pings: the server sends `PING` after `pingMs` of quiet and drops a peer that does not answer within `pongWaitMs`. */
export interface KeepAliveOptions {
  /** Default 30 000. */
  readonly pingMs?: number;
  /** Default 5 000. */
  readonly pongWaitMs?: number;
}

/** How the A2A WebSocket endpoint serves a {@link TaskService}. */
export interface WebSocketOptions {
  readonly service: TaskService;
  /** The URL path of the endpoint (query strings are allowed). Default `/a2a/ws`. */
  readonly path?: string;
  /** Authentication, checked once per connection (core's hooks: `apiKeyAuth`, `bearerAuth`, ...). */
  readonly auth?: AuthPolicy;
  /** Per-connection bounds; the rest keep {@link DEFAULT_LIMITS}. */
  readonly limits?: Partial<ConnectionLimits>;
  /** Keep-alive pings (on by default); `false` turns them off. */
  readonly keepAlive?: KeepAliveOptions | false;
  /** Receives warnings (slow readers disconnected) and unexpected errors. */
  readonly logger?: Logger;
}

/** Options of {@link attachWebSocket}: the endpoint, and the HTTP server whose upgrades it takes. */
export interface AttachOptions extends WebSocketOptions {
  readonly server: HttpServer | HttpsServer;
}

/** A running WebSocket endpoint. */
export interface WebSocketEndpoint {
  /** Connections open now. */
  readonly connections: number;
  /**
   * Stops taking upgrades and closes every connection (1001, going away;
   * sockets that do not finish the close handshake within `graceMs`,
   * default 2 000, are terminated). Streams end; tasks go on. Does not close
   * the HTTP server.
   */
  close(graceMs?: number): Promise<void>;
}

function pathOf(request: IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://localhost').pathname;
}

function refuseUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function closeWithin(socket: WebSocket, graceMs: number): Promise<void> {
  if (socket.readyState === socket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.terminate(), graceMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.close(1001, 'Server shutting down');
  });
}

/** True when the client said it will send tRPC connection params as its first message. */
function announcesParams(request: IncomingMessage): boolean {
  return new URL(request.url ?? '/', 'http://localhost').searchParams.get('connectionParams') === '1';
}

/** Closes `socket` (4400, InvalidRequest) unless the returned function is called within `ms`. */
function paramsDeadline(socket: WebSocket, ms: number): () => void {
  const error = new A2AError('InvalidRequest', `No connection params arrived within ${ms} ms; send them as the first message`);
  const timer = setTimeout(() => socket.close(closeCodeOf(error), closeReasonOf(error)), ms);
  socket.once('close', () => clearTimeout(timer));
  return () => clearTimeout(timer);
}

/**
 * Serves A2A over WebSocket on an existing `node:http` (or `https`) server,
 * next to whatever else it serves (JSON-RPC, HTTP+JSON, the agent card):
 * upgrades on `path` are taken by a `ws` server running tRPC's ws adapter
 * with the router of {@link createA2ARouter}. Each connection is
 * authenticated once, then carries any number of calls and (up to
 * `limits.maxSubscriptions`) streams; keep-alive pings drop dead peers; a
 * reader that falls more than `limits.maxBufferedBytes` behind is
 * disconnected. Upgrades on other paths are left to the server's other
 * `upgrade` listeners (refused with 404 when there is none). The upgrade
 * request itself is bounded by the HTTP server's request timeouts
 * (`serveA2A`'s `timeouts.headersMs`, `serveWebSocket`'s
 * `handshakeTimeoutMs`).
 */
export function attachWebSocket(options: AttachOptions): WebSocketEndpoint {
  const { server, service, logger } = options;
  const path = options.path ?? DEFAULT_WS_PATH;
  const limits: ConnectionLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const keepAlive = options.keepAlive === false ? undefined : { enabled: true, pingMs: 30_000, pongWaitMs: 5_000, ...options.keepAlive };
  const slots = new WeakMap<WebSocket, ConnectionSlots>();
  /** Connections still owing their connection params: what stops their deadline. */
  const owing = new WeakMap<WebSocket, () => void>();
  const contextOf = createContextFactory({ auth: options.auth, slotsOf: (socket) => slots.get(socket) });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false });
  const onConnection = getWSConnectionHandler({
    wss,
    router: createA2ARouter(service),
    createContext: (opts) => {
      owing.get(opts.res)?.();
      return contextOf(opts);
    },
    ...(keepAlive && { keepAlive }),
    onError: ({ error, path: procedure }) => {
      if (isUnexpected(error)) logger?.error({ procedure, error: error.cause ?? error }, 'A2A WebSocket call failed');
    },
  });
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (pathOf(request) !== path) {
      if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, 404, 'Not Found');
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      slots.set(ws, guardConnection(ws, socket, limits, logger));
      if (announcesParams(request)) owing.set(ws, paramsDeadline(ws, limits.connectionParamsTimeoutMs));
      onConnection(ws, request);
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    get connections() {
      return wss.clients.size;
    },
    async close(graceMs = 2_000) {
      server.off('upgrade', onUpgrade);
      await Promise.all([...wss.clients].map((socket) => closeWithin(socket, graceMs)));
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
