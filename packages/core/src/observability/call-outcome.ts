import { A2AError, GRPC_STATUS } from '../errors.js';
import { ATTR } from './attributes.js';
import type { Attributes, SpanLike } from './otel-types.js';
import { SPAN_STATUS } from './otel-types.js';

/** The `rpc.system` values of Taskwire's transports. */
export const RPC_SYSTEM = {
  jsonRpc: 'jsonrpc',
  grpc: 'grpc',
  /** The A2A HTTP+JSON (REST) binding: no RPC system of the conventions fits it. */
  httpJson: 'a2a_http_json',
  /** The WebSocket binding: tRPC procedures over WebSocket. */
  webSocket: 'trpc',
  inMemory: 'a2a_in_memory',
} as const;

/** gRPC statuses that are the server's fault (the conventions mark only these as span errors on a server). */
const SERVER_FAULTS = new Set<number>([
  GRPC_STATUS.UNKNOWN,
  GRPC_STATUS.DEADLINE_EXCEEDED,
  GRPC_STATUS.UNIMPLEMENTED,
  GRPC_STATUS.INTERNAL,
  GRPC_STATUS.UNAVAILABLE,
  15, // DATA_LOSS
]);

/** The status-code attribute of a successful call on `system`. */
export function successAttributes(system: string, into: Attributes): Attributes {
  if (system === RPC_SYSTEM.grpc) into[ATTR.grpcStatusCode] = GRPC_STATUS.OK;
  else if (system === RPC_SYSTEM.httpJson) into[ATTR.httpStatusCode] = 200;
  return into;
}

/**
 * The attributes of a failed call as `system` reports it: `error.type` (the
 * A2A reason, e.g. `TASK_NOT_FOUND`, or the error's name for an unexpected
 * error, which transports answer as INTERNAL) and the wire's status code
 * (`rpc.grpc.status_code`, `rpc.jsonrpc.error_code`,
 * `http.response.status_code`). Returns whether the server is at fault.
 */
export function failureAttributes(system: string, error: unknown, into: Attributes): boolean {
  const a2a = A2AError.is(error) ? error : undefined;
  into[ATTR.errorType] = a2a?.reason ?? (error instanceof Error ? error.name : 'Error');
  const grpc = a2a ? GRPC_STATUS[a2a.grpcStatus] : GRPC_STATUS.INTERNAL;
  if (system === RPC_SYSTEM.grpc) into[ATTR.grpcStatusCode] = grpc;
  else if (system === RPC_SYSTEM.httpJson) into[ATTR.httpStatusCode] = a2a?.httpStatus ?? 500;
  else if (system === RPC_SYSTEM.jsonRpc) into[ATTR.jsonRpcErrorCode] = a2a?.code ?? -32603;
  return SERVER_FAULTS.has(grpc);
}

/** Records a failure on a span: its attributes, and an ERROR status with the exception when the server is at fault. */
export function failSpan(span: SpanLike, system: string, error: unknown, serverSide: boolean): Attributes {
  const attributes: Attributes = {};
  const serverFault = failureAttributes(system, error, attributes);
  if (system === RPC_SYSTEM.jsonRpc && error instanceof Error) attributes[ATTR.jsonRpcErrorMessage] = error.message;
  span.setAttributes(attributes);
  if (serverFault || !serverSide) {
    if (error instanceof Error) span.recordException(error);
    span.setStatus({ code: SPAN_STATUS.ERROR, message: error instanceof Error ? error.message : String(error) });
  }
  return attributes;
}
