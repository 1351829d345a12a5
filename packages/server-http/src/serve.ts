import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { httpInterfaces } from './agent-card.js';
import type { A2AHandler } from './handler.js';
import { createA2AHandler } from './handler.js';
import type { A2AHttpOptions } from './options.js';
import { HTTP_DEFAULTS } from './options.js';
import type { CardSource } from './public-card.js';
import { publicBaseUrl } from './public-url.js';

/**
 * How long {@link serveA2A} waits for slow or idle clients. Each bound
 * ends the connection (node answers 408 when a request is late); answers,
 * SSE streams included, are never limited by them.
 */
export interface HttpTimeouts {
  /**
   * How long a request's head (request line and headers) may take to
   * arrive, counted from the connection or the previous answer; default
   * 10 000 ms. Also bounds a WebSocket upgrade request on this server.
   */
  readonly headersMs?: number;
  /** How long a whole request (head and body) may take to arrive; default 30 000 ms; at least `headersMs`. */
  readonly requestMs?: number;
  /** How long an idle keep-alive connection is kept between requests; default 5 000 ms (node adds a second of grace). */
  readonly keepAliveMs?: number;
}

/** The `node:http` server options of `timeouts`, with the defaults of {@link HTTP_DEFAULTS}. */
function serverTimeouts(timeouts: HttpTimeouts = {}): ServerOptions {
  const headersTimeout = timeouts.headersMs ?? Math.min(HTTP_DEFAULTS.headersTimeoutMs, timeouts.requestMs ?? Infinity);
  const requestTimeout = timeouts.requestMs ?? Math.max(HTTP_DEFAULTS.requestTimeoutMs, headersTimeout);
  if (!(headersTimeout > 0 && requestTimeout >= headersTimeout)) {
    throw new TypeError(`serveA2A timeouts: headersMs must be positive and requestMs at least headersMs (got ${headersTimeout} and ${requestTimeout})`);
  }
  return {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: timeouts.keepAliveMs ?? HTTP_DEFAULTS.keepAliveTimeoutMs,
    // Node looks for late requests every this often (30 s unless told): a quarter of the bound, at most a second.
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 4)),
  };
}

/** How {@link serveA2A} listens, on top of the handler options. */
export interface ServeA2AOptions extends Omit<A2AHttpOptions, 'card' | 'publicUrl'> {
  /** Port to listen on; default 0 (a free port: read it from the result's `url`). */
  readonly port?: number;
  /** Interface to listen on; default `127.0.0.1`. */
  readonly host?: string;
  /**
   * The public card, or a function of the base URL clients reach the server
   * at that builds it (`publicUrl`, else the server's own URL: the port may
   * be known only after listening; with `trustProxy`, the base URL the
   * request's proxy reports). Default: the service's card with
   * `supportedInterfaces` set to the JSON-RPC and HTTP+JSON interfaces at
   * that base URL (a signed service card is served unchanged).
   */
  readonly card?: CardSource;
  /**
   * The base URL clients reach the server at when it is not the server's
   * own, e.g. the load balancer in front of several replicas
   * (`https://agents.example.com`; a path prefix is kept): the card's
   * interfaces then point there, so clients that read the card stay behind
   * the balancer. Default: the server's own URL (see {@link A2AServer.url}).
   */
  readonly publicUrl?: string;
  /**
   * Answers the requests none of the A2A paths take (a web page, health
   * checks). Default: 404 with an A2A error body.
   */
  readonly fallback?: (request: IncomingMessage, response: ServerResponse) => void;
  /** Bounds on slow or idle clients (see {@link HttpTimeouts}); short by default. */
  readonly timeouts?: HttpTimeouts;
  /**
   * How long `close()` lets busy connections finish (a response in flight, a
   * stream's last bytes to a client that stopped reading) before it cuts
   * them; default 5000 ms.
   */
  readonly shutdownGraceMs?: number;
}

/** A running A2A HTTP server. */
export interface A2AServer {
  readonly server: Server;
  /** Base URL, e.g. `http://127.0.0.1:43121` (no trailing slash). */
  readonly url: string;
  /** The base URL the card's interfaces are built for: `publicUrl` when given (checked, no trailing slash), else {@link url}. */
  readonly publicUrl: string;
  readonly port: number;
  readonly handler: A2AHandler;
  /**
   * Stops listening, ends open streams (tasks keep running; clients resume
   * with `Last-Event-ID`), lets answers in flight finish (cutting what is
   * left after `shutdownGraceMs`) and resolves when every connection is
   * closed. Calling it again returns the same promise. Does not close the
   * service.
   */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts a `node:http` server for a service: JSON-RPC at `/a2a/jsonrpc`,
 * HTTP+JSON at `/a2a/rest`, the card at `/.well-known/agent-card.json`
 * (paths configurable, see {@link A2AHttpOptions}). Clients that send their
 * requests too slowly or keep connections idle are cut off (see
 * {@link HttpTimeouts}). Resolves once it listens.
 */
export async function serveA2A(options: ServeA2AOptions): Promise<A2AServer> {
  const { createServer } = await import('node:http');
  const publicUrl = options.publicUrl === undefined ? undefined : publicBaseUrl(options.publicUrl);
  const host = options.host ?? '127.0.0.1';
  const server = createServer(serverTimeouts(options.timeouts));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${port}`;
  const given = options.card;
  const serviceCard = options.service.card;
  const card: CardSource | undefined =
    given ??
    // A signed card is served as signed: new interfaces would break its signature.
    (serviceCard?.signatures?.length
      ? serviceCard
      : serviceCard &&
        ((baseUrl: string) => ({
          ...serviceCard,
          supportedInterfaces: httpInterfaces(baseUrl, { jsonRpcPath: options.jsonRpcPath, restPath: options.restPath }),
        })));
  const handler = createA2AHandler({ ...options, card, publicUrl: publicUrl ?? url });
  const connections = trackConnections(server);
  const fallback = options.fallback;
  server.on('request', fallback ? (req, res) => handler.node(req, res, () => fallback(req, res)) : handler.node);
  let closed: Promise<void> | undefined;
  return {
    server,
    url,
    publicUrl: publicUrl ?? url,
    port,
    handler,
    close: () =>
      (closed ??= new Promise<void>((resolve, reject) => {
        const cut = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 5000);
        cut.unref();
        server.close((error) => {
          clearTimeout(cut);
          if (error) reject(error);
          else resolve();
        });
        handler.close();
        connections.closing();
      })),
  };
}

/**
 * Keeps the server's sockets, because node's `server.close()` waits for
 * connections that never sent a request (clients open spare keep-alive
 * sockets): on closing, those are destroyed. Idle keep-alive connections are
 * closed by node; busy ones are answered with `Connection: close` by the
 * handler once it is closing.
 */
function trackConnections(server: Server): { closing(): void } {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    closing() {
      server.closeIdleConnections();
      for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    },
  };
}
