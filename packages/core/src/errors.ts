import type * as z from 'zod';

/** gRPC status codes used by the A2A error mapping (name → number). */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
/** A gRPC status name. */
export type GrpcStatusName = keyof typeof GRPC_STATUS;

interface ErrorSpec {
  readonly code: number;
  readonly grpc: GrpcStatusName;
  readonly http: number;
  readonly reason: string;
  readonly message: string;
}

/**
 * Every error Taskwire reports, once: its JSON-RPC code, gRPC status, HTTP
 * status, `google.rpc.ErrorInfo` reason and default message (A2A v1.0.1
 * table, plus the JSON-RPC 2.0 standard errors, authentication and
 * authorization, A2A 1.1's `TaskGenerationMismatch` (-32010, ABORTED, 409 as
 * the dev-1.1 text at commit 28491879 says), `Unauthenticated` for a missing or bad credential,
 * `PermissionDenied` for a known caller who may not make the call, and
 * `IdempotencyKeyReused` for an `Idempotency-Key` sent again with another
 * message: invalid params on JSON-RPC and gRPC, 422 on HTTP+JSON as the
 * IETF Idempotency-Key draft says; A2A has no code of its own for it yet).
 */
export const ERROR_TABLE = {
  TaskNotFound: { code: -32001, grpc: 'NOT_FOUND', http: 404, reason: 'TASK_NOT_FOUND', message: 'Task not found' },
  TaskNotCancelable: { code: -32002, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'TASK_NOT_CANCELABLE', message: 'Task cannot be canceled' },
  PushNotificationNotSupported: { code: -32003, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', message: 'Push notifications are not supported' },
  UnsupportedOperation: { code: -32004, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'UNSUPPORTED_OPERATION', message: 'This operation is not supported' },
  ContentTypeNotSupported: { code: -32005, grpc: 'INVALID_ARGUMENT', http: 400, reason: 'CONTENT_TYPE_NOT_SUPPORTED', message: 'Incompatible content types' },
  InvalidAgentResponse: { code: -32006, grpc: 'INTERNAL', http: 500, reason: 'INVALID_AGENT_RESPONSE', message: 'Invalid agent response' },
  ExtendedAgentCardNotConfigured: { code: -32007, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', message: 'Extended agent card is not configured' },
  ExtensionSupportRequired: { code: -32008, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'EXTENSION_SUPPORT_REQUIRED', message: 'A required extension was not declared' },
  VersionNotSupported: { code: -32009, grpc: 'FAILED_PRECONDITION', http: 400, reason: 'VERSION_NOT_SUPPORTED', message: 'Protocol version not supported' },
  ParseError: { code: -32700, grpc: 'INVALID_ARGUMENT', http: 400, reason: 'PARSE_ERROR', message: 'Invalid JSON payload' },
  InvalidRequest: { code: -32600, grpc: 'INVALID_ARGUMENT', http: 400, reason: 'INVALID_REQUEST', message: 'Request payload validation error' },
  MethodNotFound: { code: -32601, grpc: 'UNIMPLEMENTED', http: 404, reason: 'METHOD_NOT_FOUND', message: 'Method not found' },
  InvalidParams: { code: -32602, grpc: 'INVALID_ARGUMENT', http: 400, reason: 'INVALID_PARAMS', message: 'Invalid parameters' },
  Internal: { code: -32603, grpc: 'INTERNAL', http: 500, reason: 'INTERNAL', message: 'Internal error' },
  Unauthenticated: { code: -32030, grpc: 'UNAUTHENTICATED', http: 401, reason: 'UNAUTHENTICATED', message: 'Authentication required' },
  PermissionDenied: { code: -32031, grpc: 'PERMISSION_DENIED', http: 403, reason: 'PERMISSION_DENIED', message: 'The caller may not make this call' },
  PayloadTooLarge: { code: -32600, grpc: 'RESOURCE_EXHAUSTED', http: 413, reason: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
  TaskGenerationMismatch: { code: -32010, grpc: 'ABORTED', http: 409, reason: 'TASK_GENERATION_MISMATCH', message: "The task's generation is not the one the message expected" },
  IdempotencyKeyReused: { code: -32602, grpc: 'INVALID_ARGUMENT', http: 422, reason: 'IDEMPOTENCY_KEY_REUSED', message: 'The Idempotency-Key was used for a different message' },
} as const satisfies Record<string, ErrorSpec>;

/** The name of an error kind in {@link ERROR_TABLE}. */
export type A2AErrorKind = keyof typeof ERROR_TABLE;

/** The ErrorInfo domain of every A2A error. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

/** One entry of an error's `details` (ProtoJSON `Any`: carries `@type`). */
export type ErrorDetail = { '@type': string } & Record<string, unknown>;

/**
 * An error with a protocol meaning. Transports map it to their wire with
 * {@link A2AError.code} (JSON-RPC), {@link A2AError.grpcStatus} and
 * {@link A2AError.httpStatus}; {@link A2AError.details} always starts with a
 * `google.rpc.ErrorInfo` whose `reason` names the kind.
 */
export class A2AError extends Error {
  override readonly name = 'A2AError';
  /** JSON-RPC error code. */
  readonly code: number;
  /** gRPC status name. */
  readonly grpcStatus: GrpcStatusName;
  /** HTTP status of the HTTP+JSON binding. */
  readonly httpStatus: number;
  /** ErrorInfo reason (UPPER_SNAKE_CASE). */
  readonly reason: string;

  constructor(
    readonly kind: A2AErrorKind,
    message?: string,
    /** ErrorInfo metadata (string values), e.g. `{ taskId }`. */
    readonly metadata: Record<string, string> = {},
    /** Further detail objects after the ErrorInfo (e.g. `google.rpc.BadRequest`). */
    readonly extraDetails: ErrorDetail[] = [],
  ) {
    const spec: ErrorSpec = ERROR_TABLE[kind];
    super(message ?? spec.message);
    this.code = spec.code;
    this.grpcStatus = spec.grpc;
    this.httpStatus = spec.http;
    this.reason = spec.reason;
  }

  /** The `details` array: ErrorInfo first, then any extra detail objects. */
  get details(): ErrorDetail[] {
    return [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: this.reason, domain: A2A_ERROR_DOMAIN, metadata: this.metadata },
      ...this.extraDetails,
    ];
  }

  /** True when `value` is an A2AError (across package copies, by shape). */
  static is(value: unknown): value is A2AError {
    return value instanceof A2AError || (value instanceof Error && value.name === 'A2AError' && 'kind' in value);
  }

  /** Finds the kind whose JSON-RPC code is `code` (A2A codes first), if any. */
  static kindOfCode(code: number): A2AErrorKind | undefined {
    return (Object.keys(ERROR_TABLE) as A2AErrorKind[]).find((k) => ERROR_TABLE[k].code === code);
  }

  /** Finds the kind whose ErrorInfo reason is `reason`, if any. */
  static kindOfReason(reason: string): A2AErrorKind | undefined {
    return (Object.keys(ERROR_TABLE) as A2AErrorKind[]).find((k) => ERROR_TABLE[k].reason === reason);
  }
}

/** TaskNotFound for `taskId`, worded so the caller knows what to check. */
export function taskNotFound(taskId: string): A2AError {
  return new A2AError('TaskNotFound', `Task ${taskId} was not found (or is not visible to this caller)`, { taskId });
}

/** Joins a zod issue path as `a.b[0].c`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/**
 * InvalidParams from a zod error: the message names every bad field with its
 * path (`message.parts[0]: ...`), and a `google.rpc.BadRequest` detail lists
 * them as field violations.
 */
export function invalidParams(error: z.ZodError, prefix = ''): A2AError {
  return fieldViolations(
    error.issues.map((issue) => ({
      field: issuePath([...(prefix ? [prefix] : []), ...issue.path]) || '(root)',
      description: issue.message,
    })),
  );
}

/**
 * InvalidParams for fields that are wrong for reasons of their own (not a
 * schema's): the message names each `field` (a path such as
 * `message.taskId`) with its `description`, and a `google.rpc.BadRequest`
 * detail lists them, as {@link invalidParams} does.
 */
export function fieldViolations(violations: readonly { field: string; description: string }[]): A2AError {
  const message = `Invalid parameters: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
  return new A2AError('InvalidParams', message, {}, [
    { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations },
  ]);
}

/** An error as a wire carries it: JSON-RPC `{code, message, data}` or a status with details. */
export interface WireError {
  readonly code?: number | undefined;
  readonly message?: string | undefined;
  /** JSON-RPC `data` or a status's `details`: detail objects with `@type`. */
  readonly details?: unknown;
}

/**
 * Rebuilds an A2AError from a wire error: the kind comes from the ErrorInfo
 * `reason` when present, else from the JSON-RPC code; unknown errors become
 * `Internal`, keeping the server's message.
 */
export function errorFromWire(wire: WireError): A2AError {
  const details = Array.isArray(wire.details) ? (wire.details as Record<string, unknown>[]) : [];
  const info = details.find((d) => typeof d?.['@type'] === 'string' && String(d['@type']).endsWith('google.rpc.ErrorInfo'));
  const byReason = typeof info?.reason === 'string' ? A2AError.kindOfReason(info.reason) : undefined;
  const kind = byReason ?? (wire.code !== undefined ? A2AError.kindOfCode(wire.code) : undefined) ?? 'Internal';
  const metadata = (info?.metadata ?? {}) as Record<string, string>;
  const extra = details.filter((d) => d !== info) as ErrorDetail[];
  return new A2AError(kind, wire.message, metadata, extra);
}
