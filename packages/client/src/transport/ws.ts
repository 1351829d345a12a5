import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, StreamResponse, UnaryMethodName } from '@taskwire/core';
import { A2AError, METHODS } from '@taskwire/core';
import { createTRPCUntypedClient, createWSClient, TRPCClientError, wsLink } from '@trpc/client';
import { TransientError } from '../transient.js';
import { PER_CALL_HEADERS, withTraceContext } from './ws-call-headers.js';
import { a2aErrorOf, refusal } from './ws-errors.js';
import { asksExtensions, unwrapped } from './ws-extensions.js';
import { connectionParamsOf, DEFAULT_WS_CONNECT_TIMEOUT_MS, type WsTransport, type WsTransportOptions } from './ws-options.js';
import { socketClass, upgradeTarget } from './ws-socket.js';

export type { WebSocketClass } from './ws-socket.js';
export { DEFAULT_WS_CONNECT_TIMEOUT_MS } from './ws-options.js';
export type { ConnectionParams, WsTransport, WsTransportOptions } from './ws-options.js';

/** Aborts when either signal does (either may be missing). */
function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  return a && b ? AbortSignal.any([a, b]) : (a ?? b);
}

/** How long a failed call waits for a closing connection to say why it closed (a refusal), at most. */
const CLOSE_GRACE_MS = 2_000;

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
  const target = upgradeTarget(options.url, options.headers);
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
    const pending: Promise<Connection> = socketClass(options.WebSocket, target.headers, watch).then((WebSocket) => {
      const keepAlive = options.keepAlive === false ? { enabled: false } : { enabled: true, intervalMs: 30_000, pongTimeoutMs: 10_000, ...options.keepAlive };
      const client = createWSClient({
        url: target.url,
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

  /**
   * The start of one call on the current connection (opened when there is
   * none): its signal (its own, and the connect deadline while no
   * connection is open), the connection, `expired` (the deadline's
   * TransientError once the deadline, not the caller, ended the call),
   * `failed` (what the call throws for `error`: that TransientError, or the
   * call's A2AError), and `done` to stop watching the deadline.
   */
  function begin(call: CallOptions | undefined) {
    const own = signalOf(call);
    const deadline = connectDeadline();
    const signal = either(own, deadline?.signal);
    const pending = connect();
    const expired = (): unknown => (deadline?.signal.aborted && !own?.aborted ? deadline.signal.reason : undefined);
    const failed = async (error: unknown): Promise<unknown> => expired() ?? (await failure(error, signal, pending));
    return { signal, pending, expired, failed, done: () => deadline?.done() };
  }

  /** One attempt of each call on the current connection (opened when there is none). */
  const once = {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      const { signal, pending, failed, done } = begin(call);
      try {
        const { trpc } = await pending;
        const read = METHODS[method].rest.verb === 'GET';
        const input = withTraceContext(params, call?.headers);
        const result = read ? trpc.query(method, input, { signal }) : trpc.mutation(method, input, { signal });
        return unwrapped(await result, 'result', call, asksExtensions(call)) as ResultOf<M>;
      } catch (error) {
        throw await failed(error);
      } finally {
        done();
      }
    },

    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      const { signal, pending, failed, done, expired } = begin(call);
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
        const late = expired();
        if (late) throw late;
      } catch (error) {
        throw await failed(error);
      } finally {
        done();
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
