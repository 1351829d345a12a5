/**
 * Call headers this binding carries per call, as members of the call's input
 * (W3C trace context, the extensions asked for, an `Idempotency-Key`); every other header belongs
 * to the connection. A call that sends `a2a-extensions` gets its answer in
 * the binding's extensions envelope (see `unwrapped`).
 */
export const PER_CALL_HEADERS = new Set(['traceparent', 'tracestate', 'a2a-extensions', 'idempotency-key']);

/** `params` with a call's trace headers added as input members (the server takes them out again). */
export function withTraceContext(params: unknown, headers: Readonly<Record<string, string>> | undefined): unknown {
  if (!headers) return params;
  let out: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (PER_CALL_HEADERS.has(name.toLowerCase())) (out ??= { ...(params as object) })[name.toLowerCase()] = value;
  }
  return out ?? params;
}
