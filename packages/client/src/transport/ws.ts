import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, StreamResponse, Transport, UnaryMethodName } from '@taskwire/core';
import { A2AError, METHODS } from '@taskwire/core';
import { createTRPCUntypedClient, createWSClient, TRPCClientError, wsLink } from '@trpc/client';
import type { TokenProvider } from '../auth/token-provider.js';
import { TransientError } from '../transient.js';
import { a2aErrorOf, refusal } from './ws-errors.js';
import { asksExtensions, unwrapped } from './ws-extensions.js';
import { socketClass, type WebSocketClass } from './ws-socket.js';

export type { WebSocketClass };

/** Connection params (or a function that makes them, called on every connect): names as the server's auth hooks read them. */
export type ConnectionParams = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** Options of {@link wsTransport}. */
export interface WsTransportOptions {
  /** The endpoint, e.g. `ws://127.0.0.1:8080/a2a/ws` (an agent card's WebSocket interface URL). */
  readonly url: string;
  /**
   * Headers of the upgrade request (`x-api-key`, `authorization`,
   * `a2a-version`, `a2a-extensions`). Needs a WebSocket class that takes
   * headers (`ws`, Node's own); browsers cannot send them: use
   * `connectionParams` there.
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

/**
 * Call headers this binding carries per call, as members of the call's input
 * (W3C trace context, the extensions asked for, an `Idempotency-Key`); every other header belongs
 * to the connection. A call that sends `a2a-extensions` gets its answer in
 * the binding's extensions envelope (see `unwrapped`).
 */
const PER_CALL_HEADERS = new Set(['traceparent', 'tracestate', 'a2a-extensions', 'idempotency-key']);


/** `params` with a call's trace headers added as input members (the server takes them out again). */
function withTraceContext(params: unknown, headers: Readonly<Record<string, string>> | undefined): unknown {
  if (!headers) return params;
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (PER_CALL_HEADERS.has(name.toLowerCase())) (out ??= { ...(params as object) })[name.toLowerCase()] = value;
  }
  return out ?? params;
}

/** Aborts when either signal does (either may be missing). */
function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

/** How long a failed call waits for a closing connection to say why it closed (a refusal), at most. */
const CLOSE_GRACE_MS = 2_000;

/** The connection params of a connect: the given ones, plus `authorization` from the token provider (a fresh token when `fresh()` says so). */
function connectionParamsOf(options: WsTransportOptions, fresh: () => boolean): ConnectionParams {
  const { connectionParams: given, token } = options;
  if (!token) return given!;
  return async () => ({ ...(typeof given === 'function' ? await given() : given), authorization: `Bearer ${await token.token({ fresh: fresh() })}` });
}

/** One connection: its tRPC client, and why the server refused it (with a token provider: the credential, renewed on the next connect). */
interface Connection {
  readonly trpc: ReturnType<typeof createTRPCUntypedClient>;
  close(): Promise<void>;
  readonly refused: () => A2AError | undefined;
}

/**
 * A core {@link Transport} over the A2A WebSocket binding (`@taskwire/server-ws`):
 * one connection, opened on the first call, carries every call and stream
 * (tRPC's wsLink over `ws`). Credentials go with the connection (`headers`
 * or `connectionParams`), not with each call. When the connection drops,
 * tRPC reconnects, and each open stream resumes after the last event it
 * delivered (no gap, no duplicate; a SendStreamingMessage resumes as a
 * SubscribeToTask of its task, its message is not sent again); unary calls
 * in flight fail with an A2AError saying so. A connection the server
 * refuses (bad credentials, unsupported version) fails every call with the
 * server's A2AError (e.g. Unauthenticated) and is not retried, unless
 * the credential comes from `token`: then the next connection asks it for
 * a fresh token (see {@link WsTransportOptions.token}).
 */
export function wsTransport(options: WsTransportOptions): WsTransport {
  let refusedWith: A2AError | undefined;
  let socket: WebSocket | undefined;
  let isOpen = false;
  const onOpen = new Set<() => void>();
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_WS_CONNECT_TIMEOUT_MS;
  const watch = (opened: WebSocket): void => {
    socket = opened;
    opened.addEventListener('open', () => {
      isOpen = socket === opened;
      for (const wake of onOpen) wake();
    });
    opened.addEventListener('close', () => {
      if (socket === opened) isOpen = false;
    });
  };
  let connection: Promise<Connection> | undefined;
  /** Connections left open after a call on them was refused as Unauthenticated (closed with the transport, or by the server). */
  const retired = new Set<Promise<Connection>>();
  /** True when the next connect must ask the token provider for a fresh token. */
  let freshToken = false;
  const takeFresh = (): boolean => {
    const fresh = freshToken;
    freshToken = false;
    return fresh;
  };
  /** With a token provider, an `Unauthenticated` refusal is the credential's: the next connection carries a fresh token. */
  const renewable = (error: unknown): boolean => options.token !== undefined && A2AError.is(error) && error.kind === 'Unauthenticated';
  /** Leaves `pending` behind (kept in `retired` while it may be open): the next call opens a new connection with a fresh token. */
  const retire = (pending: Promise<Connection>, open: boolean): void => {
    if (open) retired.add(pending);
    else retired.delete(pending);
    if (connection !== pending) return; // already retired
    freshToken = true;
    connection = undefined;
  };

  const connect = (): Promise<Connection> => {
    if (connection) return connection;
    let refused: A2AError | undefined;
    const pending: Promise<Connection> = socketClass(options.WebSocket, options.headers, watch).then((WebSocket) => {
      const keepAlive = options.keepAlive === false ? { enabled: false } : { enabled: true, intervalMs: 30_000, pongTimeoutMs: 10_000, ...options.keepAlive };
      const client = createWSClient({
        url: options.url,
        WebSocket,
        keepAlive,
        ...((options.connectionParams || options.token) && { connectionParams: connectionParamsOf(options, takeFresh) }),
        ...(options.retryDelayMs && { retryDelayMs: options.retryDelayMs }),
        onClose(event) {
          // Runs before the failed calls settle, so each of them reports the refusal.
          refused ??= refusal(event as { code?: number; reason?: string } | undefined);
          if (!refused) return;
          void client.close();
          if (renewable(refused)) retire(pending, false);
          else refusedWith ??= refused;
        },
      });
      return { trpc: createTRPCUntypedClient({ links: [wsLink({ client })] }), close: () => client.close(), refused: () => refused };
    });
    connection = pending;
    return pending;
  };

  /** The signal of one call (its own signal and timeout), if it has one. */
  function signalOf(call: CallOptions | undefined): AbortSignal | undefined {
    if (call?.headers && Object.keys(call.headers).some((name) => !PER_CALL_HEADERS.has(name.toLowerCase()))) {
      throw new A2AError(
        'InvalidRequest',
        'The WebSocket transport sends credentials once per connection: pass headers or connectionParams to wsTransport(), not to each call',
      );
    }
    if (refusedWith) throw refusedWith;
    const timeout = call?.timeoutMs ? AbortSignal.timeout(call.timeoutMs) : undefined;
    if (call?.signal && timeout) return AbortSignal.any([call.signal, timeout]);
    return call?.signal ?? timeout;
  }

  /**
   * While no connection is open: a signal that aborts with a TransientError
   * if none opens within `connectTimeoutMs`, and `done` to stop watching.
   */
  function connectDeadline(): { signal: AbortSignal; done(): void } | undefined {
    if (isOpen || connectTimeoutMs === Infinity) return undefined;
    const controller = new AbortController();
    const message = `No WebSocket connection to ${options.url} opened within ${connectTimeoutMs} ms; is the agent running there?`;
    const timer = setTimeout(() => isOpen || controller.abort(new TransientError(message)), connectTimeoutMs);
    const opened = () => clearTimeout(timer);
    onOpen.add(opened);
    return { signal: controller.signal, done: () => (clearTimeout(timer), onOpen.delete(opened)) };
  }

  /** Resolves once a closing connection has closed (and so said whether it was refused). */
  const closed = (): Promise<void> =>
    socket?.readyState !== 2 // CLOSING
      ? Promise.resolve()
      : new Promise((resolve) => {
          const timer = setTimeout(resolve, CLOSE_GRACE_MS);
          socket!.addEventListener('close', () => (clearTimeout(timer), resolve()), { once: true });
        });

  /**
   * The A2AError of a failed call on `pending`; a call that failed because
   * the connection is closing reports why it closed. With a token provider,
   * an `Unauthenticated` one retires the connection (see {@link retire}).
   */
  async function failure(error: unknown, signal: AbortSignal | undefined, pending: Promise<Connection>): Promise<A2AError> {
    const used = await pending.catch(() => undefined);
    if (!refusedWith && !used?.refused() && !(error instanceof TRPCClientError && error.data)) await closed();
    const reported = refusedWith ?? used?.refused() ?? a2aErrorOf(error, signal);
    if (renewable(reported)) retire(pending, !used?.refused());
    return reported;
  }

  /** One attempt of each call on the current connection (opened when there is none). */
  const once = {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      const own = signalOf(call);
      const deadline = connectDeadline();
      const signal = either(own, deadline?.signal);
      const pending = connect();
      try {
        const { trpc } = await pending;
        const read = METHODS[method].rest.verb === 'GET';
        const input = withTraceContext(params, call?.headers);
        const result = read ? trpc.query(method, input, { signal }) : trpc.mutation(method, input, { signal });
        return unwrapped(await result, 'result', call, asksExtensions(call)) as ResultOf<M>;
      } catch (error) {
        if (deadline?.signal.aborted && !own?.aborted) throw deadline.signal.reason;
        throw await failure(error, signal, pending);
      } finally {
        deadline?.done();
      }
    },

    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      const own = signalOf(call);
      const deadline = connectDeadline();
      const signal = either(own, deadline?.signal);
      const pending = connect();
      try {
        const { trpc } = await pending;
        const events = trpc.subscription(method, withTraceContext(params, call?.headers), { signal }) as AsyncIterableIterator<{ id: string; data: StreamResponse }>;
        const enveloped = asksExtensions(call);
        let told = false;
        for await (const event of events) {
          // Every event carries the set; it is final once the stream opened, so the first one tells it.
          const data: unknown = event.data;
          const response = told ? (enveloped ? (data as { response: unknown }).response : data) : unwrapped(data, 'response', call, enveloped);
          told = true;
          yield { sequence: Number.parseInt(event.id, 10), response: response as StreamResponse };
        }
        // An aborted subscription just ends: a connect deadline that ended it is a failure.
        if (deadline?.signal.aborted && !own?.aborted) throw deadline.signal.reason;
      } catch (error) {
        if (deadline?.signal.aborted && !own?.aborted) throw deadline.signal.reason;
        throw await failure(error, signal, pending);
      } finally {
        deadline?.done();
      }
      // A refused connection ends its streams: report why.
      const refused = refusedWith ?? (await pending).refused();
      if (refused) throw refused;
    },
  };

  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      try {
        return await once.unary(method, params, call);
      } catch (error) {
        if (!renewable(error)) throw error;
        return once.unary(method, params, call); // on a new connection, with a fresh token
      }
    },

    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      let delivered = false;
      try {
        for await (const event of once.stream(method, params, call)) {
          delivered = true;
          yield event;
        }
        return;
      } catch (error) {
        if (delivered && renewable(error)) {
          // The server closed the connection when its credential expired or was withdrawn (4401): a drop, which
          // the client resumes (SubscribeToTask from the last event) on a new connection with a fresh token.
          throw new TransientError('The stream ended because its credential ended; resuming with a fresh token', { cause: error });
        }
        if (delivered || !renewable(error)) throw error;
      }
      yield* once.stream(method, params, call); // refused before its first event: on a new connection, with a fresh token
    },

    async close() {
      const open = [connection, ...retired];
      connection = undefined;
      retired.clear();
      await Promise.all(open.map(async (pending) => pending && (await pending).close()));
    },
  };
}
