import type { A2AError } from '@taskwire/core';

/**
 * The WebSocket close code of a connection refused with `error`: 4000 plus
 * the error's HTTP status (4401 for Unauthenticated, 4400 for
 * VersionNotSupported, 4500 when the auth hook failed).
 */
export function closeCodeOf(error: A2AError): number {
  return 4000 + error.httpStatus;
}

/** A close reason `REASON: message`, cut to the 123 bytes a close frame allows. */
export function closeReasonOf(error: A2AError): string {
  let reason = `${error.reason}: ${error.message}`;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}
