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

/** Options of {@link serveHttp}. */
export interface ServeHttpOptions {
  /** Port to listen on (0: any free one). */
  readonly port: number;
  /** Address to listen on. Default `127.0.0.1`; on a loopback address only loopback `Host` and `Origin` headers are accepted. */
  readonly host?: string;
  /** The path of the MCP endpoint. Default `/mcp`. */
  readonly path?: string;
  /** Makes the MCP server of a new session. */
  readonly newServer: () => Promise<McpServer>;
  readonly logger?: Logger;
}

/** A running Streamable HTTP endpoint. */
export interface HttpBridge {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Closes every session and the listener. */
  close(): Promise<void>;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/;

/** True for a loopback address or name (`127.x.x.x`, `localhost`, `::1`). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/** The host name of a `Host` header or an origin (`localhost:3000` → `localhost`). */
function hostName(value: string): string {
  try {
    return new URL(value.includes('://') ? value : `http://${value}`).hostname;
  } catch {
    return '';
  }
}

/** True when a request to a loopback listener comes from the same machine's pages only (no DNS rebinding). */
function loopbackRequest(req: IncomingMessage): boolean {
  const host = req.headers.host ?? '';
  const origin = req.headers.origin;
  return isLoopback(hostName(host)) && (origin === undefined || isLoopback(hostName(origin)));
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Serves MCP over Streamable HTTP at `path`: a POST with `initialize`
 * starts a session (its own `McpServer` from `newServer`), later requests
 * name it in `Mcp-Session-Id`; DELETE ends it. Unknown sessions get 404,
 * bad JSON 400, other paths 404.
 */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpBridge> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const guard = isLoopback(host);
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== path) return reply(res, 404, `The MCP endpoint is ${path}`);
    if (guard && !loopbackRequest(req)) return reply(res, 403, 'This bridge answers loopback hosts and origins only');
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readJson(req);
      } catch {
        return reply(res, 400, 'The body is not JSON');
      }
    }
    if (session) return session.transport.handleRequest(req, res, body);
    if (id !== undefined) return reply(res, 404, 'Unknown or ended session; initialize a new one');
    if (req.method !== 'POST' || !isInitializeRequest(body)) return reply(res, 400, 'No session: send initialize first');
    const server = await options.newServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, server }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      server.close().catch(() => {});
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const http: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ err: error }, 'MCP request failed');
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
    close: async () => {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => {})));
      await new Promise<void>((resolve) => (http.close(() => resolve()), http.closeAllConnections()));
    },
  };
}
