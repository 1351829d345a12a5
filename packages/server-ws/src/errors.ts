import type { A2AErrorKind, ErrorDetail, GrpcStatusName } from '@taskwire/core';
import { A2AError } from '@taskwire/core';
import type { TRPCDefaultErrorShape, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

/**
 * The A2A error a WebSocket error carries in `data.a2a`: its JSON-RPC code,
 * its `google.rpc.ErrorInfo` reason and the `details` array (ErrorInfo first).
 * Clients rebuild an `A2AError` from it (and the shape's `message`) with
 * core's `errorFromWire`.
 */
export interface A2AErrorData {
  readonly code: number;
  readonly reason: string;
  readonly details: ErrorDetail[];
}

/** The error shape every procedure of the A2A router sends: tRPC's default shape plus `data.a2a`. */
export interface A2AErrorShape extends TRPCDefaultErrorShape {
  readonly data: TRPCDefaultErrorShape['data'] & { readonly a2a: A2AErrorData };
}

/** tRPC's code for each gRPC status of core's error table (the same HTTP meaning). */
const TRPC_CODE_OF_GRPC: Record<GrpcStatusName, TRPC_ERROR_CODE_KEY> = {
  OK: 'INTERNAL_SERVER_ERROR',
  CANCELLED: 'CLIENT_CLOSED_REQUEST',
  UNKNOWN: 'INTERNAL_SERVER_ERROR',
  INVALID_ARGUMENT: 'BAD_REQUEST',
  DEADLINE_EXCEEDED: 'TIMEOUT',
  NOT_FOUND: 'NOT_FOUND',
  ALREADY_EXISTS: 'CONFLICT',
  PERMISSION_DENIED: 'FORBIDDEN',
  RESOURCE_EXHAUSTED: 'PAYLOAD_TOO_LARGE',
  FAILED_PRECONDITION: 'PRECONDITION_FAILED',
  ABORTED: 'CONFLICT',
  UNIMPLEMENTED: 'NOT_IMPLEMENTED',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
  UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  UNAUTHENTICATED: 'UNAUTHORIZED',
};

/** The A2A kind of a failure tRPC raised itself (a bad frame, an unknown procedure, ...). */
const A2A_KIND_OF_TRPC: Partial<Record<TRPC_ERROR_CODE_KEY, A2AErrorKind>> = {
  PARSE_ERROR: 'ParseError',
  BAD_REQUEST: 'InvalidRequest',
  UNPROCESSABLE_CONTENT: 'InvalidRequest',
  UNSUPPORTED_MEDIA_TYPE: 'InvalidRequest',
  NOT_FOUND: 'MethodNotFound',
  METHOD_NOT_SUPPORTED: 'MethodNotFound',
  UNAUTHORIZED: 'Unauthenticated',
  FORBIDDEN: 'PermissionDenied',
  PAYLOAD_TOO_LARGE: 'PayloadTooLarge',
};

/** What the client is told about a tRPC-level failure, so that it knows what to fix. */
function failureMessage(kind: A2AErrorKind, message: string): string {
  switch (kind) {
    case 'ParseError':
      return `The frame could not be read (${message}); send one JSON tRPC message (or a JSON array of them) per text frame`;
    case 'MethodNotFound':
      return `${message}; the A2A router serves the v1.0 operation names (SendMessage, GetTask, ...) as procedures`;
    case 'Internal':
      return 'Internal error: the server failed while handling this call (the server log has the cause)';
    default:
      return message;
  }
}

/**
 * The A2A error behind a tRPC error: the A2AError a procedure threw (tRPC
 * keeps it as the cause), or one built from the tRPC code of a failure tRPC
 * raised itself. An unexpected error becomes `Internal` without its
 * message, which stays in the server log.
 */
export function a2aErrorOf(error: TRPCError): A2AError {
  if (A2AError.is(error.cause)) return error.cause;
  const kind = error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal' : (A2A_KIND_OF_TRPC[error.code] ?? 'Internal');
  return new A2AError(kind, failureMessage(kind, error.message));
}

/**
 * True when a connection failed because of its peer: a frame that breaks
 * RFC 6455 (`ws` error codes `WS_ERR_*`: bad opcode, unmasked frame,
 * invalid UTF-8, too large, ...) or a socket the peer dropped. `ws` closes
 * that connection with the matching code; the server itself is fine.
 */
function isPeerFailure(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('WS_ERR_') || code === 'ECONNRESET' || code === 'EPIPE');
}

/** True for an unexpected server failure (worth logging), as opposed to a protocol error or a peer breaking its connection. */
export function isUnexpected(error: TRPCError): boolean {
  return error.code === 'INTERNAL_SERVER_ERROR' && !A2AError.is(error.cause) && !isPeerFailure(error.cause);
}

/** The tRPC code an A2A error is sent with. */
export function trpcCodeOf(error: A2AError): TRPC_ERROR_CODE_KEY {
  if (error.kind === 'ParseError') return 'PARSE_ERROR';
  if (error.kind === 'MethodNotFound') return 'NOT_FOUND';
  return TRPC_CODE_OF_GRPC[error.grpcStatus];
}

/**
 * The router's `errorFormatter`: keeps tRPC's shape, so that every tRPC
 * client reads it, and adds the A2A error as `data.a2a`. An A2AError thrown
 * by the service picks the tRPC code from its gRPC status (TaskNotFound is
 * NOT_FOUND, InvalidParams is BAD_REQUEST, ...); a code chosen explicitly
 * with a `TRPCError` is kept. Stack traces are never sent.
 */
export function formatA2AError({ shape, error }: { shape: TRPCDefaultErrorShape; error: TRPCError }): A2AErrorShape {
  const a2a = a2aErrorOf(error);
  const explicit = error.code !== 'INTERNAL_SERVER_ERROR';
  const key = explicit ? error.code : trpcCodeOf(a2a);
  return {
    message: a2a.message,
    code: TRPC_ERROR_CODES_BY_KEY[key],
    data: {
      code: key,
      httpStatus: explicit ? shape.data.httpStatus : a2a.httpStatus,
      ...(shape.data.path !== undefined && { path: shape.data.path }),
      a2a: { code: a2a.code, reason: a2a.reason, details: a2a.details },
    },
  };
}
