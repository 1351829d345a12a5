import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Logger } from '@taskwire/core';
import { apiError, BadRequest, InspectorApi } from './api.js';
import { isLoopbackHost, isWildcardHost, newSessionToken, PageGuard, urlHost } from './page-guard.js';

/** Options of {@link startInspector}. */
export interface InspectorOptions {
  /** The port (default 0: a free one). */
  readonly port?: number;
  /**
   * The host to listen on (default `127.0.0.1`: the page is for this
   * machine only). Any other address is warned about through `logger`, and
   * the API still requires the session token.
   */
  readonly host?: string;
  /** The agent the page opens with (it can name another). */
  readonly agentUrl?: string;
  /** Told about requests that fail inside the inspector. */
  readonly logger?: Logger;
}

/** A running inspector. */
export interface RunningInspector {
  /**
   * The page's URL, with the session token (`?token=`) that every API call
   * must carry, and `&agent=` when `agentUrl` was given. Whoever holds it
   * can drive the inspector: show it to the user only.
   */
  readonly url: string;
  /** True when the inspector listens on an address other than this machine's loopback (see `host`). */
  readonly exposed: boolean;
  /** Stops listening and ends open streams. */
  close(): Promise<void>;
}

/** This module's URL in the ESM build and the sources, or its folder's in the CommonJS build (which has no `import.meta`). */
const HERE = typeof __dirname === 'string' ? pathToFileURL(`${__dirname}/`).href : import.meta.url;
/** The page's files: `page/` beside `src/` and `dist/`. */
const PAGE_DIR = new URL('../page/', HERE);
const ASSETS: Readonly<Record<string, readonly [file: string, type: string]>> = {
  '/': ['index.html', 'text/html; charset=utf-8'],
  '/app.js': ['app.js', 'text/javascript; charset=utf-8'],
  '/common.js': ['common.js', 'text/javascript; charset=utf-8'],
  '/tasks.js': ['tasks.js', 'text/javascript; charset=utf-8'],
  '/style.css': ['style.css', 'text/css; charset=utf-8'],
};
const CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** The headers of every file of the page: no framing, no sniffing, no referrer (the URL holds the token). */
const PAGE_HEADERS = { 'content-security-policy': CSP, 'x-frame-options': 'DENY', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
const MAX_BODY = 16 * 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BadRequest('the request body is over 16 MB');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the request body is not JSON');
  }
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

/** The API takes JSON bodies only (another site's form cannot send one without a CORS preflight, which is never answered). */
const isJson = (req: IncomingMessage) => (req.headers['content-type'] ?? '').startsWith('application/json');

/**
 * Starts the inspector: a web page and its JSON/SSE API on a local HTTP
 * server (127.0.0.1 unless `host` says otherwise). It opens no browser;
 * open `url`, which holds the session token. It answers its own page only:
 * a Host of this machine on its port (see `PageGuard`), the page's own
 * origin, and the token on every API call. Every call to an agent goes
 * through this process with `@taskwire/client`; credentials entered on the
 * page stay in its memory and in the requests that use them.
 */
export async function startInspector(options: InspectorOptions = {}): Promise<RunningInspector> {
  const api = new InspectorApi();
  const token = newSessionToken();
  let guard: PageGuard | undefined;
  const streams = new Set<AbortController>();
  const routes: Record<string, (body: unknown) => Promise<unknown>> = {
    '/api/inspect': (body) => api.inspect(body),
    '/api/call': (body) => api.call(body),
    '/api/checks': (body) => api.checks(body),
    '/api/webhook': () => api.webhook(),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const isApi = path.startsWith('/api/');
    const refused = isApi ? guard!.checkApi(req) : guard!.checkPage(req);
    if (refused) return json(res, refused.status, { error: { message: refused.message } });
    const asset = ASSETS[path];
    if (asset && (req.method === 'GET' || req.method === 'HEAD')) {
      const body = await readFile(new URL(asset[0], PAGE_DIR));
      res.writeHead(200, { 'content-type': asset[1], ...PAGE_HEADERS });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    if (!isApi) return json(res, 404, { error: { message: `no such page: ${path} (the inspector is at /)` } });
    if (req.method !== 'POST' || !isJson(req)) return json(res, 403, { error: { message: 'the API takes JSON POSTs from the inspector page only' } });
    try {
      const body = await readJson(req);
      const route = routes[path];
      if (route) return json(res, 200, await route(body));
      if (path !== '/api/stream') return json(res, 404, { error: { message: `no such API: ${path}` } });
      const controller = new AbortController();
      streams.add(controller);
      res.on('close', () => controller.abort());
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      await api.stream(body, (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`), controller.signal);
      streams.delete(controller);
      res.end();
    } catch (error) {
      if (!(error instanceof BadRequest)) options.logger?.warn({ path, error: (error as Error).message }, 'An inspector request failed');
      if (res.headersSent) {
        res.end(`event: error\ndata: ${JSON.stringify(apiError(error))}\n\n`);
      } else json(res, error instanceof BadRequest ? 400 : 502, { error: apiError(error) });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.logger?.error({ error: (error as Error).message }, 'The inspector could not answer a request');
      if (!res.headersSent) json(res, 500, { error: apiError(error) });
      else res.end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  guard = new PageGuard(host, port, token);
  const exposed = !isLoopbackHost(host);
  if (exposed) options.logger?.warn({ host, port }, 'The inspector listens beyond this machine: anyone who has its URL (with the token) can use it');
  // Every address includes this machine's: the page opens there on a wildcard address.
  const shown = isWildcardHost(host) ? '127.0.0.1' : urlHost(host);
  const url = `http://${shown}:${port}/?token=${token}${options.agentUrl ? `&agent=${encodeURIComponent(options.agentUrl)}` : ''}`;
  return {
    url,
    exposed,
    async close() {
      for (const stream of streams) stream.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await api.close();
    },
  };
}
