import type { ClientCertificate } from '@taskwire/core';
import type { SseStream } from './sse-stream.js';

/** Request headers with lower-case names, as node and fetch both provide them. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A request as the transport-neutral core sees it. The node and fetch hosts
 * build it from their own request objects; nothing here depends on either.
 */
export interface HttpRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The raw (still percent-encoded) path, without the query. */
  readonly path: string;
  /** The raw query string without `?` (`''` when there is none). */
  readonly query: string;
  readonly headers: HeaderBag;
  /**
   * Reads the whole body as UTF-8 text. Rejects with a `PayloadTooLarge`
   * A2AError once more than the size limit has arrived, and with a
   * `ParseError` when the bytes are not UTF-8.
   */
  readonly body: () => Promise<string>;
  /** A body some framework already parsed (Express `json()`); used instead of {@link body}. */
  readonly parsedBody?: unknown;
  /** The client certificate of a TLS connection, read when auth asks for it (node host over HTTPS). */
  readonly certificate?: () => ClientCertificate | undefined;
}

/** A complete answer: a status, headers and a text body (`''` for none). */
export interface TextReply {
  readonly kind: 'text';
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A Server-Sent Events answer; the host pulls chunks from {@link stream} as the client can take them. */
export interface StreamReply {
  readonly kind: 'stream';
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly stream: SseStream;
}

/** What the core answers; hosts write it to their wire. */
export type HttpReply = TextReply | StreamReply;

/** The path of a request URL (`/a2a/rest/tasks?pageSize=2` → `/a2a/rest/tasks`). */
export function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** The first value of a header, if present. */
export function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
}

/** The transport-neutral core the hosts call; `undefined` means "not an A2A path" (the host passes it on or answers 404). */
export type CoreHandle = (request: HttpRequest) => Promise<HttpReply | undefined>;
