import type { CallContext, MethodName, ServerCall, TaskService } from '@taskwire/core';
import { HEADER_GETTER, RPC_SYSTEM, startServerCall } from '@taskwire/core';

/**
 * The input members that carry a call's W3C trace context over this
 * binding (tRPC messages have no per-call headers): `traceparent` and
 * `tracestate`, next to the operation's params. They are taken out before
 * the params reach the service.
 */
export const TRACE_INPUT_KEYS = ['traceparent', 'tracestate'] as const;

type Carrier = Readonly<Record<string, string | undefined>>;

const hasTrace = (input: unknown): input is Record<string, unknown> =>
  typeof input === 'object' && input !== null && ('traceparent' in input || 'tracestate' in input);

/** `input` without its trace members (the same object when it has none) and those members. */
export function splitTrace(input: unknown): { params: unknown; carrier: Carrier | undefined } {
  if (!hasTrace(input)) return { params: input, carrier: undefined };
  const { traceparent, tracestate, ...params } = input;
  const carrier = { traceparent: typeof traceparent === 'string' ? traceparent : undefined, tracestate: typeof tracestate === 'string' ? tracestate : undefined };
  return { params, carrier };
}

/** Starts the server span and metrics of one WebSocket call, parented on the trace context its input carried. */
export function startWsCall(service: TaskService, method: MethodName, params: unknown, carrier: Carrier | undefined, context: CallContext): ServerCall | undefined {
  return startServerCall(service.telemetry, RPC_SYSTEM.webSocket, method, params, context, carrier ?? {}, HEADER_GETTER);
}
