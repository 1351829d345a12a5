import type { CallOptions } from '@taskwire/core';

/** The request header (gRPC metadata, WebSocket input member) that carries a send's idempotency key. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** True when a call carries an `Idempotency-Key` (so sending it again is safe: see `withRetry`). */
export function hasIdempotencyKey(call: CallOptions | undefined): boolean {
  return call?.headers !== undefined && Object.keys(call.headers).some((name) => name.toLowerCase() === IDEMPOTENCY_KEY_HEADER);
}

/**
 * The call options of a SendMessage or SendStreamingMessage with its
 * idempotency key: the call's own `key` when given; else, when `auto` and
 * the message names no task (a first send), a new random one; else `call`
 * as it is (a key already in its headers stays). One key per logical send:
 * every retry of the call reuses these options, so the server answers them
 * with the task the first attempt made.
 */
export function keyedSend<C extends CallOptions>(call: C, params: unknown, key: string | undefined, auto: boolean): C {
  if (hasIdempotencyKey(call)) return call;
  const first = !(params as { message?: { taskId?: string } } | undefined)?.message?.taskId;
  const chosen = key ?? (auto && first ? crypto.randomUUID() : undefined);
  return chosen === undefined ? call : { ...call, headers: { ...call.headers, [IDEMPOTENCY_KEY_HEADER]: chosen } };
}
