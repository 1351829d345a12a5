import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebSocketOptions } from './attach.js';
import { attachWebSocket, DEFAULT_WS_PATH } from './attach.js';

/** Options of {@link serveWebSocket}: the endpoint, and where to listen. */
export interface ServeOptions extends WebSocketOptions {
  /** Default 0: a free port (read it from the returned `url`). */
  readonly port?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /**
   * How long an upgrade request (or any plain request) may take to arrive
   * in full; a client that trickles it is answered 408 and cut off.
   * Default 10 000 ms. Established connections are not limited by it (the
   * keep-alive pings and `limits.connectionParamsTimeoutMs` bound them).
   */
  readonly handshakeTimeoutMs?: number;
}

/** The default of {@link ServeOptions.handshakeTimeoutMs}. */
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

/** A standalone WebSocket server. */
export interface WebSocketServerHandle {
  /** The endpoint's URL, e.g. `ws://127.0.0.1:52314/a2a/ws`. */
  readonly url: string;
  /** Open connections. */
  readonly connections: number;
  /** Closes every connection (see `WebSocketEndpoint.close`), then stops listening. */
  close(): Promise<void>;
}

/**
 * Serves A2A over WebSocket on a server of its own: the endpoint of
 * {@link attachWebSocket} on a new `node:http` server that answers plain
 * HTTP requests with 426 Upgrade Required and cuts off clients whose
 * upgrade request is slower than `handshakeTimeoutMs`. Resolves once it
 * listens.
 */
export async function serveWebSocket(options: ServeOptions): Promise<WebSocketServerHandle> {
  const handshake = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  const bounds = {
    headersTimeout: handshake,
    requestTimeout: handshake,
    // Node looks for late requests every this often (30 s unless told): a quarter of the bound, at most a second.
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(handshake / 4)),
  };
  const server = createServer(bounds, (_request, response) => {
    response.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' });
    response.end('This endpoint serves A2A over WebSocket: connect with a WebSocket (tRPC wsLink) client.\n');
  });
  const endpoint = attachWebSocket({ ...options, server });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostname = host.includes(':') ? `[${host}]` : host;
  return {
    url: `ws://${hostname}:${port}${options.path ?? DEFAULT_WS_PATH}`,
    get connections() {
      return endpoint.connections;
    },
    async close() {
      await endpoint.close();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
