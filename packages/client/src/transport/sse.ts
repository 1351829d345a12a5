import type { CallOptions } from '@taskwire/core';
import { A2AError, parseExtensionsHeader } from '@taskwire/core';
import { CredentialScope } from '../auth/origins.js';
import { fetchInScope } from '../auth/redirects.js';
import { parseRetryAfter, TRANSIENT_HTTP_STATUSES, TransientError } from '../transient.js';

/**
 * Server-Sent Events parsing, and the fetch plumbing the JSON-RPC and
 * HTTP+JSON transports share. Runs anywhere `fetch` and `ReadableStream`
 * exist (browsers, node 20, workers): no node built-ins.
 */

/** One dispatched SSE event. */
export interface SseMessage {
  /** The last event ID seen so far (the `id:` field persists across events, as in EventSource). */
  readonly id: string | undefined;
  /** The `event:` field, `message` when absent. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
}

/**
 * Parses an SSE body (WHATWG HTML §9.2.6): lines end in CRLF, LF or CR;
 * comments (`:`) and heartbeats are skipped; `data:` lines accumulate; a
 * blank line dispatches. Canceling the iteration cancels the body.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let lastId: string | undefined;
  let event = '';
  let data: string[] = [];
  const line = (text: string): SseMessage | undefined => {
    if (text === '') {
      const message = data.length > 0 ? { id: lastId, event: event || 'message', data: data.join('\n') } : undefined;
      data = [];
      event = '';
      return message;
    }
    if (text.startsWith(':')) return undefined;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    return undefined;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i);
        if (c !== 10 && c !== 13) continue;
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (c === 13 && i === buffer.length - 1 && !done) break;
        const message = line(buffer.slice(start, i));
        if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
        start = i + 1;
        if (message) yield message;
      }
      buffer = buffer.slice(start);
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The protocol version the fetch transports speak (sent as `A2A-Version`). */
export const A2A_VERSION = '1.0';

/** What both fetch transports are configured with. */
export interface FetchTransportOptions {
  /** The endpoint: the JSON-RPC URL, or the HTTP+JSON base URL. */
  readonly url: string;
  /** The `fetch` to use (default: the global one); inject one for tests, retries or auth. */
  readonly fetch?: typeof fetch;
  /** Headers sent with every call (e.g. `x-api-key`); per-call headers win. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Origins besides `url`'s that may receive credential headers when a
   * redirect leads there (each an origin or a URL on it). A redirect to any
   * other origin is refused when the request carries credentials (see
   * `fetchInScope`); same-origin redirects are followed.
   */
  readonly trustedOrigins?: readonly string[];
}

/**
 * Sends one request: merges headers (transport, then call, then `extra`),
 * applies the call's signal and timeout, and turns network failures and
 * timeouts into A2AErrors that say what to check: a network failure, or an
 * HTTP 408/429/502/503/504, is a {@link TransientError} (retried on
 * idempotent calls, with `Retry-After` honoured). A caller's own abort is
 * rethrown as it is. Redirects are followed by `fetchInScope`: credentials
 * never follow one to an origin other than `url`'s or a trusted one.
 */
export async function send(
  options: FetchTransportOptions,
  url: string,
  init: { method: string; body?: string; headers: Record<string, string> },
  call: CallOptions | undefined,
): Promise<Response> {
  const timeout = call?.timeoutMs ? AbortSignal.timeout(call.timeoutMs) : undefined;
  const signals = [call?.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const headers = { 'a2a-version': A2A_VERSION, ...options.headers, ...call?.headers, ...init.headers };
  let response: Response;
  try {
    const scope = new CredentialScope(options.url, options.trustedOrigins);
    response = await fetchInScope(options.fetch ?? fetch, url, { method: init.method, headers, body: init.body, signal }, scope, `The call to ${url}`);
  } catch (error) {
    if (A2AError.is(error)) throw error;
    if (call?.signal?.aborted) throw call.signal.reason ?? error;
    if (timeout?.aborted) throw new A2AError('Internal', `The call to ${url} timed out after ${call!.timeoutMs} ms`);
    throw new TransientError(`Could not reach the agent at ${url} (${(error as Error).message}); check the URL and that the agent is running`, {
      cause: error,
    });
  }
  if (TRANSIENT_HTTP_STATUSES.has(response.status)) {
    await response.body?.cancel().catch(() => undefined);
    throw new TransientError(`The agent at ${url} answered HTTP ${response.status}; try again later`, {
      status: response.status,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
  if (response.ok) call?.onExtensions?.(parseExtensionsHeader(response.headers.get('a2a-extensions') ?? undefined) ?? []);
  return response;
}

/** True when a response carries an SSE body. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** A response body parsed as JSON, or an Internal A2AError that quotes what came instead. */
export async function readJson(response: Response, url: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new A2AError('Internal', `The agent at ${url} answered HTTP ${response.status} with a body that is not JSON: ${excerpt || '(empty)'}`);
  }
}

/** The sequence number of an SSE event id (0 when the server sent none). */
export function sequenceOf(id: string | undefined): number {
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : 0;
}
