import type { Transport } from '@taskwire/core';
import type { TokenProvider } from '../auth/token-provider.js';
import type { TransientError } from '../transient.js';
import type { WebSocketClass } from './ws-socket.js';

/** Connection params (or a function that makes them, called on every connect): names as the server's auth hooks read them. */
export type ConnectionParams = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** Options of {@link wsTransport}. */
export interface WsTransportOptions {
  /** The endpoint, e.g. `ws://127.0.0.1:8080/a2a/ws` (an agent card's WebSocket interface URL). */
  readonly url: string;
  /**
   * Headers of the upgrade request (`x-api-key`, `authorization`,
   * `a2a-extensions`). Needs a WebSocket class that takes headers (`ws`,
   * Node's own); browsers cannot send them: use `connectionParams` there.
   * `a2a-version` is the exception: it goes in the URL, as the `A2A-Version`
   * query parameter the specification allows, so it works in browsers too.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** The same names as `headers`, sent as the connection's first message (works in browsers). */
  readonly connectionParams?: ConnectionParams;
  /**
   * Bearer tokens for the connection: asked for on every connect (so a
   * reconnect carries a fresh one) and sent as the `authorization`
   * connection param, next to `connectionParams`. When the server refuses
   * the connection's credential or closes the connection because it
   * expired (4401), the next call opens a new connection with a fresh
   * token (`token({ fresh: true })`), and a call refused as
   * `Unauthenticated` is made once more that way (a stream when it was
   * refused before its first event; one that the server ends later because
   * its credential expired or was withdrawn fails with a
   * {@link TransientError}, which the client resumes from its last event),
   * as the HTTP transports retry after a 401.
   */
  readonly token?: TokenProvider;
  /** The WebSocket class; default the platform's, else `ws` (an optional peer dependency). */
  readonly WebSocket?: WebSocketClass;
  /** Client pings that detect a dead connection (then reconnect); default every 30 s, 10 s to answer. `false`: off. */
  readonly keepAlive?: { readonly intervalMs?: number; readonly pongTimeoutMs?: number } | false;
  /** Delay before reconnect attempt `n` (0-based); default tRPC's exponential backoff (0 ms, 2 s, 4 s, ... 30 s). */
  readonly retryDelayMs?: (attempt: number) => number;
  /**
   * How long a call made while no connection is open waits for one (the
   * first connect, or a reconnect) before it fails with a
   * {@link TransientError}; default 10 s, `Infinity` to wait for good. A
   * stream that has started keeps reconnecting regardless.
   */
  readonly connectTimeoutMs?: number;
}

/** Default of {@link WsTransportOptions.connectTimeoutMs}. */
export const DEFAULT_WS_CONNECT_TIMEOUT_MS = 10_000;

/** A {@link Transport} over one WebSocket connection; `close()` ends it. */
export interface WsTransport extends Transport {
  close(): Promise<void>;
}

/** The connection params of a connect: the given ones, plus `authorization` from the token provider (a fresh token when `fresh()` says so). */
export function connectionParamsOf(options: WsTransportOptions, fresh: () => boolean): ConnectionParams {
  const { connectionParams: given, token } = options;
  if (!token) return given!;
  return async () => ({ ...(typeof given === 'function' ? await given() : given), authorization: `Bearer ${await token.token({ fresh: fresh() })}` });
}
