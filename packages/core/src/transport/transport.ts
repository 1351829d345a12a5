import type { ParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import type { StreamEvent } from '../calls.js';

/** Per-call options every transport honours. */
export interface CallOptions {
  /** Aborts the call (and ends a stream); never cancels the task on the server. */
  readonly signal?: AbortSignal | undefined;
  /** Extra request headers or metadata (e.g. `x-api-key`, `authorization`). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
  /** Fails the call with a timeout after this many milliseconds. */
  readonly timeoutMs?: number | undefined;
  /**
   * Receives the extensions the agent activated for this call (the
   * `A2A-Extensions` the answer carried; `[]` when none): before a unary
   * call resolves, and before a stream's first event (again on each
   * reconnect of a resumed stream). The extensions a call asks for go in
   * `headers['a2a-extensions']` (comma-separated), which every transport
   * carries.
   */
  readonly onExtensions?: ((activated: readonly string[]) => void) | undefined;
}

/**
 * The client side of a wire: one unary call and one stream, for every
 * operation of the method table. Implementations exist for in-memory,
 * JSON-RPC, HTTP+JSON, gRPC and WebSocket. Failures are thrown as
 * `A2AError`s carrying the protocol error the server sent.
 */
export interface Transport {
  /** Calls a unary operation. */
  unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>>;
  /**
   * Opens a stream operation. The iterable throws the server's error (before
   * the first item when the call is refused); breaking out of it closes the
   * stream.
   */
  stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent>;
  /** Releases connections. */
  close?(): Promise<void>;
}
