import type { HttpReply, HttpRequest, TextReply } from './http-types.js';
import { header } from './http-types.js';
import { HTTP_DEFAULTS } from './options.js';
import { emptyReply } from './replies.js';

/**
 * Cross-origin access for browser clients (CORS), opt-in. Without it no
 * CORS header is sent and a browser page on another origin cannot read the
 * answers.
 */
export interface CorsOptions {
  /**
   * The origins allowed to call, each `scheme://host[:port]` (e.g.
   * `https://app.example.com`, compared exactly), or `'*'` for any origin.
   */
  readonly origins: '*' | readonly string[];
  /** How long a browser may reuse a preflight answer (`Access-Control-Max-Age`); default 600 s. */
  readonly maxAgeSeconds?: number;
  /**
   * Lets browsers send cookies and HTTP authentication and read the answer
   * (`Access-Control-Allow-Credentials: true`). Needs an explicit `origins`
   * list: letting every site make credentialed calls is refused.
   */
  readonly credentials?: boolean;
  /**
   * Request headers to allow besides the ones A2A uses (`content-type`,
   * `authorization`, `x-api-key`, `a2a-version`, `a2a-extensions`,
   * `idempotency-key`, `last-event-id`, `cache-control`), e.g. a header your `authenticate`
   * hook reads.
   */
  readonly allowHeaders?: readonly string[];
}

/** The request headers every CORS-enabled handler allows. */
export const CORS_ALLOW_HEADERS: readonly string[] = ['content-type', 'authorization', 'x-api-key', 'a2a-version', 'a2a-extensions', 'idempotency-key', 'last-event-id', 'cache-control'];
/** The response headers a page may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS: readonly string[] = ['a2a-version', 'a2a-extensions', 'www-authenticate', 'etag', 'retry-after'];
/** The methods the bindings use. */
const ALLOW_METHODS = 'GET, POST, DELETE, OPTIONS';
const EXPOSE_HEADERS = CORS_EXPOSE_HEADERS.join(', ');

/** A configured origin in the form browsers send it (`Origin` header), or a TypeError saying how to write it. */
function originOf(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  if (!url || url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new TypeError(`cors.origins: "${entry}" is not an origin; write it as scheme://host[:port], e.g. https://app.example.com`);
  }
  return url.origin;
}

function withVary(headers: Record<string, string>): Record<string, string> {
  const vary = headers.vary;
  return { ...headers, vary: vary ? `${vary}, Origin` : 'Origin' };
}

/**
 * The CORS rules of one handler, applied to A2A paths only.
 *
 * - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
 *   from an allowed origin gets 204 with `Access-Control-Allow-Origin`,
 *   `-Allow-Methods` (GET, POST, DELETE, OPTIONS), `-Allow-Headers` (the
 *   whole allowed list, whatever the request asked for: the browser refuses
 *   a header that is not in it), `-Max-Age` and `Vary: Origin`. It never
 *   needs credentials.
 * - A preflight from any other origin gets 403 without CORS headers.
 * - Every other answer (results, SSE streams, errors, the card, 304s) gets
 *   `Vary: Origin` and, for an allowed `Origin`, `Access-Control-Allow-Origin`
 *   (`*` when any origin is allowed without credentials, else the origin),
 *   `Access-Control-Expose-Headers` and, with credentials,
 *   `Access-Control-Allow-Credentials: true`.
 */
export class CorsPolicy {
  private readonly origins: ReadonlySet<string> | '*';
  private readonly credentials: boolean;
  private readonly preflightHeaders: Readonly<Record<string, string>>;

  /** Checks the options; throws a TypeError for an entry that is no origin, or for credentials with `'*'`. */
  constructor(options: CorsOptions) {
    this.credentials = options.credentials === true;
    if (options.origins === '*' && this.credentials) {
      throw new TypeError("cors: credentials need an explicit list of origins (origins: ['https://app.example.com']), not '*'");
    }
    this.origins = options.origins === '*' ? '*' : new Set(options.origins.map(originOf));
    const allowHeaders = new Set([...CORS_ALLOW_HEADERS, ...(options.allowHeaders ?? []).map((name) => name.trim().toLowerCase())]);
    this.preflightHeaders = {
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': [...allowHeaders].join(', '),
      'access-control-max-age': String(options.maxAgeSeconds ?? HTTP_DEFAULTS.corsMaxAgeSeconds),
    };
  }

  /** True for a CORS preflight request, which {@link preflight} answers instead of the endpoint. */
  isPreflight(request: HttpRequest): boolean {
    return request.method === 'OPTIONS' && header(request.headers, 'origin') !== undefined && header(request.headers, 'access-control-request-method') !== undefined;
  }

  /** The answer to a preflight: 204 with the allow headers, or 403 for an origin that is not allowed. */
  preflight(request: HttpRequest): TextReply {
    const allowed = this.allowOrigin(request);
    if (allowed === undefined) return emptyReply(403, { vary: 'Origin' });
    return emptyReply(204, { ...allowed, ...this.preflightHeaders, vary: 'Origin' });
  }

  /** An answer with the CORS headers its request earns (none but `Vary: Origin` for a missing or refused origin). */
  apply<R extends HttpReply>(request: HttpRequest, reply: R): R {
    const allowed = this.allowOrigin(request);
    const headers = withVary(reply.headers);
    if (allowed) Object.assign(headers, allowed, { 'access-control-expose-headers': EXPOSE_HEADERS });
    return { ...reply, headers };
  }

  /** The `Access-Control-Allow-Origin` (and `-Allow-Credentials`) headers for the request's origin, if it is allowed. */
  private allowOrigin(request: HttpRequest): Record<string, string> | undefined {
    const origin = header(request.headers, 'origin');
    if (origin === undefined) return undefined;
    if (this.origins === '*') return { 'access-control-allow-origin': '*' };
    if (!this.origins.has(origin.toLowerCase())) return undefined;
    return this.credentials ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' } : { 'access-control-allow-origin': origin };
  }
}
