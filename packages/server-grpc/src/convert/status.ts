import type { A2AError, ErrorDetail } from '@taskwire/core';
import { GRPC_STATUS } from '@taskwire/core';
import { Any } from '../gen/google/protobuf/any.js';
import { BadRequest, ErrorInfo } from '../gen/google/rpc/error_details.js';
import { Status } from '../gen/google/rpc/status.js';

// A2A errors on the gRPC wire: a `google.rpc.Status` in the
// `grpc-status-details-bin` trailer whose details are `Any`s, the first an
// `ErrorInfo` (reason, domain "a2a-protocol.org", metadata).

const TYPE_PREFIX = 'type.googleapis.com/';
const ERROR_INFO = 'google.rpc.ErrorInfo';
const BAD_REQUEST = 'google.rpc.BadRequest';

function typeName(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

function packDetail(detail: ErrorDetail): Any | undefined {
  const name = typeName(detail['@type']);
  if (name === ERROR_INFO) {
    const info = ErrorInfo.encode({
      reason: String(detail.reason ?? ''),
      domain: String(detail.domain ?? ''),
      metadata: { ...((detail.metadata as Record<string, string> | undefined) ?? {}) },
    });
    return { typeUrl: TYPE_PREFIX + ERROR_INFO, value: Buffer.from(info.finish()) };
  }
  if (name === BAD_REQUEST) {
    const violations = (detail.fieldViolations as { field?: string; description?: string; reason?: string }[] | undefined) ?? [];
    const bad = BadRequest.encode({
      fieldViolations: violations.map((v) => ({ field: v.field ?? '', description: v.description ?? '', reason: v.reason ?? '' })),
    });
    return { typeUrl: TYPE_PREFIX + BAD_REQUEST, value: Buffer.from(bad.finish()) };
  }
  // A detail type we have no schema for cannot be packed into an Any.
  return undefined;
}

function unpackDetail(any: Any): ErrorDetail {
  const name = typeName(any.typeUrl);
  if (name === ERROR_INFO) {
    const info = ErrorInfo.decode(any.value);
    return { '@type': any.typeUrl, reason: info.reason, domain: info.domain, metadata: info.metadata };
  }
  if (name === BAD_REQUEST) {
    const bad = BadRequest.decode(any.value);
    return {
      '@type': any.typeUrl,
      fieldViolations: bad.fieldViolations.map((v) => ({ field: v.field, description: v.description, ...(v.reason && { reason: v.reason }) })),
    };
  }
  return { '@type': any.typeUrl, value: any.value.toString('base64') };
}

/**
 * The `grpc-status-details-bin` value of an A2A error: a `google.rpc.Status`
 * with the error's gRPC code, its message, and its details (ErrorInfo first,
 * then a BadRequest when the error names bad fields).
 */
export function encodeStatusDetails(error: A2AError): Buffer {
  const details = error.details.map(packDetail).filter((d): d is Any => d !== undefined);
  return Buffer.from(Status.encode({ code: GRPC_STATUS[error.grpcStatus], message: error.message, details }).finish());
}

/** What a `grpc-status-details-bin` value says: code, message and details in ProtoJSON shape (`@type`). */
export interface DecodedStatus {
  readonly code: number;
  readonly message: string;
  readonly details: ErrorDetail[];
}

/** Reads a `grpc-status-details-bin` value; undefined when it is not a valid `google.rpc.Status`. */
export function decodeStatusDetails(bytes: Uint8Array): DecodedStatus | undefined {
  try {
    const status = Status.decode(bytes);
    return { code: status.code, message: status.message, details: status.details.map(unpackDetail) };
  } catch {
    return undefined;
  }
}
