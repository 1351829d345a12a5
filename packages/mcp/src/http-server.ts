// The bridge over Streamable HTTP: one MCP session per client, all sharing
// one connection to the agent.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@taskwire/core';
import { BodyTooLarge, hasToken, readJson, servedNames, servedRequest } from './http-guard.js';
import type { TaskScope } from './task-scope.js';
import { TaskOwners } from './task-scope.js';

export { isLoopback } from './http-guard.js';

/** The default bound of a request body: 4 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** The default idle time after which a session ends: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
/** The default number of sessions open at once. */
export const DEFAULT_MAX_SESSIONS = 100;

/** What a new session's server is made with. */
export interface SessionContext {
  /** The A2A tasks and contexts the session may use: its own, or those of everyone with the bridge's token. */
  readonly scope: TaskScope;
}

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /** Port to listen on (0: any free one). */
  readonly port: number;
  /** Address to listen on. Default `127.0.0.1`. Whatever it is, only requests whose `Host` and `Origin` name the endpoint are answered (see `allowedHosts`). */
  readonly host?: string;
  /** Host names the endpoint also answers to besides the loopback names and a specific `host` address (a LAN name, a proxy's name). */
  readonly allowedHosts?: readonly string[];
  /** When set, every request needs `Authorization: Bearer <token>` (401 otherwise), and sessions with it share their A2A tasks. */
  readonly token?: string;
  /** The path of the MCP endpoint. Default `/mcp`. */
  readonly path?: string;
  /** The largest request body taken, in bytes (413 past it, before parsing). Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** A session with no request for this long ends (its server closes). Default 30 minutes. */
  readonly sessionIdleMs?: number;
  /** Sessions open at once; an `initialize` past it gets 503. Default 100. */
  readonly maxSessions?: number;
  /** Makes the MCP server of a new session. */
  readonly newServer: (session: SessionContext) => Promise<McpServer>;
  readonly logger?: Logger;
}

/** A running Streamable HTTP endpoint. */
export interface HttpBridge {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** How many sessions are open. */
  readonly sessions: number;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  readonly principal: string;
  lastSeen: number;
  /** Requests (and streams) under way: a session is idle only without any. */
  busy: number;
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** The principal everyone holding the bridge's token shares. */
const TOKEN_HOLDER = 'token';

/**
 * Serves MCP over Streamable HTTP at `path`: a POST with `initialize`
 * starts a session (its own `McpServer` from `newServer`), later requests
 * name it in `Mcp-Session-Id`; DELETE ends it. Every request is checked
 * first: `Host` and `Origin` must name the endpoint (403), the token must be
 * there when one is set (401), the body must fit `maxBodyBytes` (413) and be
 * JSON (400). Unknown sessions get 404, other paths 404. A refused
 * `initialize` leaves no server behind; sessions end after `sessionIdleMs`
 * without requests, and at most `maxSessions` are open. Each session gets
 * the A2A tasks of its principal only (see {@link TaskOwners}).
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpBridge> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const names = servedNames(host, options.allowedHosts);
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, Session>();
  /** Initializes under way: they count against the cap until they are a session or refused, so that a burst cannot pass it. */
  let opening = 0;
  const owners = new TaskOwners();

  const end = (id: string, session: Session) => {
    if (sessions.get(id) !== session) return;
    sessions.delete(id);
    if (![...sessions.values()].some((other) => other.principal === session.principal)) owners.release(session.principal);
    void session.transport.close().catch(() => {});
  };
  const sweep = () => {
    const now = Date.now();
    for (const [id, session] of sessions) if (session.busy === 0 && now - session.lastSeen >= idleMs) end(id, session);
  };
  const sweeper = setInterval(sweep, Math.max(10, Math.min(idleMs / 2, 60_000)));
  sweeper.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== path) return reply(res, 404, `The MCP endpoint is ${path}`);
    if (!servedRequest(req, names)) return reply(res, 403, 'This bridge answers requests for its own host names only (add others with --allowed-host)');
    if (options.token !== undefined && !hasToken(req, options.token)) return reply(res, 401, "Give the bridge's token: Authorization: Bearer <token>", { 'www-authenticate': 'Bearer' });
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req, limit);
      } catch (error) {
        if (error instanceof BodyTooLarge) return reply(res, 413, `The body is larger than ${limit} bytes`, { connection: 'close' });
        return reply(res, 400, 'The body is not JSON');
      }
    }
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session) {
      session.busy++;
      session.lastSeen = Date.now();
      res.once('close', () => {
        session.busy--;
        session.lastSeen = Date.now();
      });
      return session.transport.handleRequest(req, res, body);
    }
    if (id !== undefined) return reply(res, 404, 'Unknown or ended session; initialize a new one');
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'No session: send initialize first');
    sweep();
    if (sessions.size + opening >= maxSessions) return reply(res, 503, `The bridge has ${maxSessions} sessions open; end one (DELETE) or try later`);
    opening++;
    let counted = true;
    const opened = () => counted && ((counted = false), opening--);
    try {
      await open(req, res, body, opened);
    } finally {
      opened();
    }
  };

  /** Makes the server and transport of a new session for an `initialize` (`opened` when it becomes one); a refused one leaves nothing behind. */
  const open = async (req: IncomingMessage, res: ServerResponse, body: unknown, opened: () => void) => {
    const principal = options.token !== undefined ? TOKEN_HOLDER : randomUUID();
    const server = await options.newServer({ scope: owners.scope(principal) });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        opened();
        sessions.set(sessionId, { transport, server, principal, lastSeen: Date.now(), busy: 0 });
      },
    });
    transport.onclose = () => {
      const sessionId = transport.sessionId;
      const open = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (sessionId !== undefined && open) end(sessionId, open);
      server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // An initialize the transport refused (bad headers, version): no session, so nothing stays.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) await server.close().catch(() => {});
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'MCP request failed');
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    get sessions() {
      return sessions.size;
    },
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => {})));
      await new Promise<void>((resolve) => (http.close(() => resolve()), http.closeAllConnections()));
    },
  };
}
