import type { AgentCard, AgentInterface } from '@taskwire/core';
import { HTTP_DEFAULTS } from './options.js';
import type { HttpRequest, TextReply } from './http-types.js';
import { header } from './http-types.js';
import { emptyReply, JSON_TYPE } from './replies.js';

/** Where {@link httpInterfaces} points. */
export interface HttpInterfaceOptions {
  /** Default `/a2a/jsonrpc`; `false` leaves the JSON-RPC entry out. */
  readonly jsonRpcPath?: string | false;
  /** Default `/a2a/rest`; `false` leaves the HTTP+JSON entry out. */
  readonly restPath?: string | false;
  /** The tenant clients should send, if the agent is multi-tenant. */
  readonly tenant?: string;
}

/**
 * The card's `supportedInterfaces` entries of an HTTP host at `baseUrl`
 * (e.g. `http://127.0.0.1:8080`): JSON-RPC first (the preferred one), then
 * HTTP+JSON, both protocol version 1.0. Add gRPC or WebSocket entries for
 * the other transports the host runs.
 */
export function httpInterfaces(baseUrl: string, options: HttpInterfaceOptions = {}): AgentInterface[] {
  const base = baseUrl.replace(/\/+$/, '');
  const entries: [string | false | undefined, string, string][] = [
    [options.jsonRpcPath, HTTP_DEFAULTS.jsonRpcPath, 'JSONRPC'],
    [options.restPath, HTTP_DEFAULTS.restPath, 'HTTP+JSON'],
  ];
  return entries
    .filter(([path]) => path !== false)
    .map(([path, fallback, protocolBinding]) => ({
      url: `${base}${path || fallback}`,
      protocolBinding,
      protocolVersion: '1.0',
      ...(options.tenant !== undefined && { tenant: options.tenant }),
    }));
}

/** A content hash for the ETag (FNV-1a, two 32-bit lanes): stable across restarts, no crypto needed. */
function contentHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** True when an `If-None-Match` value names `etag` (weak comparison, `*` matches anything). */
function matches(ifNoneMatch: string, etag: string): boolean {
  const strip = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
}

/** How the card endpoint answers: its caching headers. */
export interface CardCaching {
  /** `Cache-Control: public, max-age=…`. */
  readonly maxAgeSeconds: number;
  /** `Last-Modified` (rounded down to whole seconds). */
  readonly lastModified: Date;
}

/**
 * True when an `If-Modified-Since` value is an HTTP date at or after
 * `lastModifiedMs`. A value that is no date is ignored (RFC 9110 §13.1.3).
 */
function unmodifiedSince(ifModifiedSince: string, lastModifiedMs: number): boolean {
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && lastModifiedMs <= since;
}

/**
 * Serves the public agent card (§8.2, §8.6): the JSON once serialised, an
 * `ETag` derived from the card's `version` and content hash, a
 * `Last-Modified` date, `Cache-Control: public, max-age=…`, and 304 Not
 * Modified for a matching `If-None-Match` or, when the request has none, an
 * `If-Modified-Since` at or after the card's date (RFC 9110 §13.1.3: the
 * ETag comparison takes precedence). Answers GET and HEAD (hosts drop a
 * HEAD's body); the card is never behind authentication.
 */
export class AgentCardEndpoint {
  private readonly body: string;
  private readonly headers: Record<string, string>;
  private readonly lastModifiedMs: number;

  constructor(card: AgentCard, caching: CardCaching) {
    this.body = JSON.stringify(card);
    this.lastModifiedMs = Math.floor(caching.lastModified.getTime() / 1000) * 1000;
    this.headers = {
      'content-type': JSON_TYPE,
      'cache-control': `public, max-age=${caching.maxAgeSeconds}`,
      etag: `"${card.version.replace(/[^\w.-]/g, '_')}-${contentHash(this.body)}"`,
      'last-modified': new Date(this.lastModifiedMs).toUTCString(),
    };
  }

  /** The card's ETag (quoted). */
  get etag(): string {
    return this.headers.etag!;
  }

  /** Answers a request for the card. */
  handle(request: HttpRequest): TextReply {
    if (request.method !== 'GET' && request.method !== 'HEAD') return emptyReply(405, { allow: 'GET, HEAD' });
    const ifNoneMatch = header(request.headers, 'if-none-match');
    const ifModifiedSince = ifNoneMatch === undefined ? header(request.headers, 'if-modified-since') : undefined;
    const notModified =
      ifNoneMatch !== undefined ? matches(ifNoneMatch, this.etag) : ifModifiedSince !== undefined && unmodifiedSince(ifModifiedSince, this.lastModifiedMs);
    if (notModified) {
      const { 'content-type': _type, ...rest } = this.headers;
      return emptyReply(304, rest);
    }
    return { kind: 'text', status: 200, headers: { ...this.headers }, body: this.body };
  }
}
