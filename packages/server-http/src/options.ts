import type { AuthPolicy, Logger, TaskService } from '@taskwire/core';
import type { CorsOptions } from './cors.js';
import type { HealthOptions } from './health.js';
import type { CardSource } from './public-card.js';
import { publicBaseUrl } from './public-url.js';

/** The paths, limits and timings a handler uses when its options leave them out. */
export const HTTP_DEFAULTS = {
  jsonRpcPath: '/a2a/jsonrpc',
  restPath: '/a2a/rest',
  cardPath: '/.well-known/agent-card.json',
  /** 1 MiB. */
  maxBodyBytes: 1024 * 1024,
  heartbeatMs: 15_000,
  cardMaxAgeSeconds: 300,
  /** `Access-Control-Max-Age` of CORS preflight answers, when `cors` is on. */
  corsMaxAgeSeconds: 600,
  /** `serveA2A`: how long a request's head may take to arrive. */
  headersTimeoutMs: 10_000,
  /** `serveA2A`: how long a whole request (head and body) may take to arrive. */
  requestTimeoutMs: 30_000,
  /** `serveA2A`: how long an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: 5_000,
} as const;

/**
 * How an A2A HTTP handler is built. Every path is absolute (it starts with
 * `/`); pass `false` to switch a binding or the card off.
 */
export interface A2AHttpOptions {
  /** The service every binding calls. */
  readonly service: TaskService;
  /**
   * The public agent card served at {@link cardPath}: a card, served as it
   * is, or a function of the base URL clients reach this host at that
   * builds it (called with {@link publicUrl}, or, with {@link trustProxy},
   * with the base URL the request's proxy reports). Default: the service's
   * card. Build its `supportedInterfaces` with `httpInterfaces(baseUrl)`.
   */
  readonly card?: CardSource | undefined;
  /**
   * The base URL clients reach this host at, e.g. a load balancer's
   * `https://agents.example.com` (a path prefix is kept): what a `card`
   * function is called with, so that every interface in the card points
   * there and not at this process. Required with a `card` function. An
   * absolute http(s) URL without query or fragment.
   */
  readonly publicUrl?: string | undefined;
  /**
   * Off by default: forwarded headers are ignored. When on, a `card`
   * function is called per request with the base URL the proxy in front
   * reports: the scheme from RFC 7239 `Forwarded: proto=` or else
   * `X-Forwarded-Proto`, the host from `Forwarded: host=` or else
   * `X-Forwarded-Host` (first element or value), each defaulting to
   * {@link publicUrl}'s. Only `http`/`https` and a valid `host[:port]` are
   * taken; anything else makes the whole report ignored ({@link publicUrl}
   * is used). Turn it on only behind a proxy that sets (or strips) these
   * headers: a client reaching the host directly could otherwise choose
   * the URLs of the card it is sent. Card answers then carry `Vary` for
   * those headers. A fixed `card` is not affected.
   */
  readonly trustProxy?: boolean | undefined;
  /**
   * Who may call: an `authenticate` hook (`apiKeyAuth`, `bearerAuth` from
   * `@taskwire/core`, or your own). A missing or wrong credential is a 401
   * with `WWW-Authenticate`. The public card is never behind auth; the
   * extended card always is when a policy is set.
   */
  readonly auth?: AuthPolicy | undefined;
  /** JSON-RPC 2.0 endpoint (default `/a2a/jsonrpc`). */
  readonly jsonRpcPath?: string | false;
  /** Base path of the HTTP+JSON binding (default `/a2a/rest`). */
  readonly restPath?: string | false;
  /** Where the public card is served (default `/.well-known/agent-card.json`). */
  readonly cardPath?: string | false;
  /** Largest request body accepted; larger ones get 413 (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /** Interval of SSE heartbeat comments while a stream is quiet (default 15 000 ms; 0 turns them off). */
  readonly heartbeatMs?: number;
  /** `Cache-Control: max-age` of the card (default 300 s). */
  readonly cardMaxAgeSeconds?: number;
  /**
   * The card's `Last-Modified` (rounded down to whole seconds, as HTTP
   * dates are); default: when the handler was built. Requests with an
   * `If-Modified-Since` at or after it (and no `If-None-Match`) get 304.
   */
  readonly cardLastModified?: Date;
  /**
   * Adds the v0.3 discovery fields to the served card (`url`,
   * `preferredTransport`, `additionalInterfaces`, `protocolVersion`,
   * `supportsAuthenticatedExtendedCard`; see `withV03Discovery`), so that
   * v0.3 clients, which read those fields, find the v0.3 layer this host
   * serves on its JSON-RPC path. Off by default: the card is then exactly a
   * v1.0 AgentCard, which strict ProtoJSON readers accept (they refuse
   * unknown fields). Turn it on when v0.3 clients must discover the agent.
   */
  readonly v03Discovery?: boolean;
  /**
   * Cross-origin access for browser pages on other origins (off by
   * default: no CORS headers, `OPTIONS` is not answered as a preflight).
   * Applies to the A2A paths and the card; see {@link CorsOptions}.
   */
  readonly cors?: CorsOptions | undefined;
  /**
   * Health checks off the A2A paths: `true` for liveness at `/healthz` and
   * readiness at `/readyz`, or {@link HealthOptions} (other paths, a
   * readiness check of your own). Off by default.
   */
  readonly health?: HealthOptions | boolean | undefined;
  /** Where unexpected errors are reported (never `console`). */
  readonly logger?: Logger | undefined;
}

/** Options with every default applied; paths have no trailing `/` (the root is `''`). */
export interface ResolvedOptions {
  readonly service: TaskService;
  readonly card: CardSource | undefined;
  readonly publicUrl: string | undefined;
  readonly trustProxy: boolean;
  readonly auth: AuthPolicy | undefined;
  readonly jsonRpcPath: string | undefined;
  readonly restPath: string | undefined;
  readonly cardPath: string | undefined;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  readonly cardMaxAgeSeconds: number;
  readonly cardLastModified: Date;
  readonly v03Discovery: boolean;
  readonly logger: Logger | undefined;
}

function path(value: string | false | undefined, fallback: string): string | undefined {
  if (value === false) return undefined;
  const chosen = value ?? fallback;
  if (!chosen.startsWith('/')) throw new TypeError(`A2A HTTP paths must start with "/" (got "${chosen}")`);
  return chosen.replace(/\/+$/, '');
}

/** Applies the defaults and checks the paths. */
export function resolveOptions(options: A2AHttpOptions): ResolvedOptions {
  return {
    service: options.service,
    card: options.card ?? options.service.card,
    publicUrl: options.publicUrl === undefined ? undefined : publicBaseUrl(options.publicUrl),
    trustProxy: options.trustProxy ?? false,
    auth: options.auth,
    jsonRpcPath: path(options.jsonRpcPath, HTTP_DEFAULTS.jsonRpcPath),
    restPath: path(options.restPath, HTTP_DEFAULTS.restPath),
    cardPath: path(options.cardPath, HTTP_DEFAULTS.cardPath),
    maxBodyBytes: options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes,
    heartbeatMs: options.heartbeatMs ?? HTTP_DEFAULTS.heartbeatMs,
    cardMaxAgeSeconds: options.cardMaxAgeSeconds ?? HTTP_DEFAULTS.cardMaxAgeSeconds,
    cardLastModified: options.cardLastModified ?? new Date(),
    v03Discovery: options.v03Discovery ?? false,
    logger: options.logger,
  };
}
