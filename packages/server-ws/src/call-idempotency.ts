import type { CallContext } from '@taskwire/core';

/**
 * The input member that carries a call's `Idempotency-Key` over this
 * binding (tRPC messages have no per-call headers), next to the
 * operation's params; taken out before the params reach the service, which
 * sees it as `CallContext.idempotencyKey`.
 */
export const IDEMPOTENCY_INPUT_KEY = 'idempotency-key';

/** `input` without its `idempotency-key` member (the same object when it has none), and the call context with the key. */
export function splitIdempotencyKey(input: unknown, call: CallContext): { params: unknown; call: CallContext } {
  if (typeof input !== 'object' || input === null || !(IDEMPOTENCY_INPUT_KEY in input)) return { params: input, call };
  const { [IDEMPOTENCY_INPUT_KEY]: key, ...params } = input as Record<string, unknown>;
  return { params, call: typeof key === 'string' ? { ...call, idempotencyKey: key } : call };
}
