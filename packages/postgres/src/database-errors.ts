import { A2AError } from '@taskwire/core';

/** Node socket errors that mean the server cannot be reached (or went away). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * SQLSTATEs that mean "try again": connection exceptions (class 08), the
 * server shutting down or starting (57P01-57P03), too many connections
 * (53300), a statement cancelled by `statement_timeout` (57014), a
 * server that takes no writes (25006: a standby after a failover, reached
 * through an address not yet switched; the connection is dropped and
 * another is opened).
 */
function retryableState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '57014' || code === '25006';
}

/** What node-postgres says when a connection ends, a connect times out or a reply never comes. */
const CONNECTION_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|connection error|Connection closed/i;

/** True when `error` means the database could not be reached or dropped the connection: the call may succeed if retried. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && retryableState(code)))) return true;
  return CONNECTION_MESSAGES.test(error.message);
}

/**
 * True when the database rolled the statement's transaction back because
 * of other transactions: a deadlock (40P01) or a serialization failure
 * (40001). Nothing of it was stored, and the same call may succeed if
 * made again.
 */
export function isConflict(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return code === '40P01' || code === '40001';
}

/**
 * True when `error` is what {@link databaseError} made of a deadlock or a
 * serialization failure: the statement was rolled back whole, so it may be
 * made again as it was.
 */
export function rolledBack(error: unknown): boolean {
  return isConflict(error) || (A2AError.is(error) && error.metadata?.cause === 'database-conflict');
}

/** The `google.rpc.RetryInfo` detail sent with an unavailable database: try again in a second. */
const RETRY_INFO = { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' };

/**
 * Turns a failure of the database into what the caller should see. A
 * connection that could not be made or was lost becomes an `Internal`
 * {@link A2AError} saying the database is unreachable and the call can be
 * retried (ErrorInfo metadata `retryable: "true"`, a `google.rpc.RetryInfo`
 * detail); `during` says what was being done. When `outcomeUnknown`, the
 * message says the change may have been stored (a commit whose connection
 * died after it was sent: it is either all there or not at all). A
 * deadlock or a serialization failure ({@link isConflict}) becomes the same
 * retryable error, saying nothing was changed (the database rolled it
 * back). Other errors are returned as they are (they are bugs or a schema
 * problem, and their messages carry no stored values).
 */
export function databaseError(error: unknown, during: string, outcomeUnknown = false): unknown {
  if (A2AError.is(error)) return error;
  if (isConflict(error)) {
    return new A2AError(
      'Internal',
      `The task database rolled back a change because of concurrent ones (${(error as Error).message}) while ${during}. Nothing was changed. Retry the request shortly.`,
      { retryable: 'true', cause: 'database-conflict' },
      [RETRY_INFO],
    );
  }
  if (!isUnavailable(error)) return error;
  const reason = (error as Error).message;
  const outcome = outcomeUnknown
    ? ' The change was either stored whole or not at all: read the task before repeating it.'
    : ' Nothing was changed.';
  return new A2AError(
    'Internal',
    `The task database is unreachable (${reason}) while ${during}.${outcome} Retry the request shortly.`,
    { retryable: 'true', cause: 'database-unavailable' },
    [RETRY_INFO],
  );
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A value for a text column: PostgreSQL cannot store the NUL character in
 * text, and a lone UTF-16 surrogate would be stored as U+FFFD (so a read
 * would not find it again). Either is refused before any SQL runs, with an
 * `InvalidParams` {@link A2AError} naming `field`.
 */
export function storable(value: string, field: string): string {
  if (value.includes('\0')) {
    throw new A2AError('InvalidParams', `Invalid parameters: ${field} must not contain the NUL character (U+0000)`);
  }
  if (LONE_SURROGATE.test(value)) {
    throw new A2AError('InvalidParams', `Invalid parameters: ${field} must be well-formed Unicode (it has a lone surrogate)`);
  }
  return value;
}

/** True when `value` could be a stored key (no NUL, well-formed): a lookup of any other value finds nothing, without SQL. */
export function lookupable(value: string): boolean {
  return !value.includes('\0') && !LONE_SURROGATE.test(value);
}
