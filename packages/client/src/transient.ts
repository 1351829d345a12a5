import { A2AError } from '@taskwire/core';
import { isAbort } from './signals.js';

/**
 * A failure of the connection rather than an answer of the agent: the
 * request may not have reached it, or its answer was lost (connection
 * refused or reset, a stream cut mid-way, HTTP 502/503/504 or 429 from a
 * proxy, gRPC UNAVAILABLE). It is an `Internal` {@link A2AError} (so the
 * transport contract holds) marked `transient: true`, which lets the client
 * retry idempotent calls and resume streams; `retryAfterMs` carries a
 * server's `Retry-After`. Any error with `transient: true` counts the same,
 * so packages that cannot import this class can mark their own.
 */
export class TransientError extends A2AError {
  /** Marks the failure as worth another try. */
  readonly transient = true;
  /** How long the server asked the client to wait before trying again, in ms. */
  readonly retryAfterMs: number | undefined;
  /** The HTTP status (or gRPC code) that made the failure transient, if any. */
  readonly status: number | undefined;

  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number | undefined; status?: number | undefined } = {}) {
    super('Internal', message);
    if (options.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause, configurable: true, writable: true });
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}

/** HTTP statuses that mean "try again later" rather than "no". */
export const TRANSIENT_HTTP_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const NETWORK_MESSAGE = /fetch failed|failed to fetch|networkerror|network error|load failed|terminated|socket hang up|other side closed/i;
const GRPC_UNAVAILABLE = 14;

function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 8; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

/**
 * True when `error` is worth retrying: a {@link TransientError} (or any error
 * marked `transient: true`, A2AErrors included), a network failure of `fetch` or of a socket
 * (by its message or its `code`, anywhere in the `cause` chain), or a gRPC
 * `UNAVAILABLE` (raw, or as an A2AError whose metadata says
 * `grpcStatus: UNAVAILABLE`). Other protocol errors ({@link A2AError}s) are answers, never
 * transient; aborts and timeouts are the caller's decision, never retried.
 */
export function isTransient(error: unknown): boolean {
  if (isAbort(error)) return false;
  if ((error as { transient?: unknown } | null)?.transient === true) return true;
  if (A2AError.is(error)) return error.metadata.grpcStatus === 'UNAVAILABLE';
  return causes(error).some((e) => {
    if ((e as { transient?: unknown } | null)?.transient === true) return true;
    const code = (e as { code?: unknown })?.code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (code === GRPC_UNAVAILABLE && typeof (e as { details?: unknown }).details === 'string') return true;
    return e instanceof TypeError && NETWORK_MESSAGE.test(e.message);
  });
}

/** The `Retry-After` a transient error carries, in ms, if any. */
export function retryAfterOf(error: unknown): number | undefined {
  for (const e of causes(error)) {
    const value = (e as { retryAfterMs?: unknown })?.retryAfterMs;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  }
  return undefined;
}

/**
 * Parses an HTTP `Retry-After` header (delay seconds or an HTTP date) into
 * milliseconds from `now`; undefined when absent or unreadable.
 */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
