import type { ErrorDetail } from '@taskwire/core';
import { A2AError, GRPC_STATUS } from '@taskwire/core';
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

/** Most characters of an error message, and of each ErrorInfo metadata value, that a status trailer carries. */
const MAX_TRAILER_TEXT = 512;
/** Most bytes of `grpc-status-details-bin`; past it the BadRequest detail is left out (the message still names the fields). */
const MAX_STATUS_DETAILS = 4096;

const cut = (text: string) => (text.length > MAX_TRAILER_TEXT ? `${text.slice(0, MAX_TRAILER_TEXT)}… (${text.length} characters in all)` : text);

/**
 * The error as a status trailer can carry it. Trailers are HTTP/2 headers,
 * whose size is bounded (node will not send a block past 64 KiB, leaving
 * the call and its connection hanging; gRPC clients refuse far less), but
 * an error may echo its input: a task id of 100 KB, thousands of field
 * violations. Long texts are cut, saying how long they were; an error that
 * needs no cut is returned as it is.
 */
export function forTrailers(error: A2AError): A2AError {
  const long = (text: string) => text.length > MAX_TRAILER_TEXT;
  const metadata = error.metadata;
  if (!long(error.message) && !Object.values(metadata).some(long) && encodeStatusDetails(error).length <= MAX_STATUS_DETAILS) return error;
  const shortMetadata = Object.fromEntries(Object.entries(metadata).map(([key, value]) => [key, cut(value)]));
  const bounded = new A2AError(error.kind, cut(error.message), shortMetadata, error.extraDetails);
  return encodeStatusDetails(bounded).length <= MAX_STATUS_DETAILS ? bounded : new A2AError(error.kind, bounded.message, shortMetadata);
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
