import type { Logger } from '@taskwire/core';
import { A2AError, authChallenge } from '@taskwire/core';
import type { TextReply } from './http-types.js';

/** Media type of JSON-RPC bodies. */
export const JSON_TYPE = 'application/json';
/** Media type of HTTP+JSON bodies. */
export const A2A_JSON_TYPE = 'application/a2a+json';

/** A JSON answer. */
export function jsonReply(status: number, value: unknown, contentType: string, headers?: Record<string, string>): TextReply {
  return { kind: 'text', status, headers: { 'content-type': contentType, ...headers }, body: JSON.stringify(value) };
}

/** An answer without a body (204, 304, ...). */
export function emptyReply(status: number, headers: Record<string, string> = {}): TextReply {
  return { kind: 'text', status, headers, body: '' };
}

/**
 * Any thrown value as an A2AError. A2AErrors pass through; anything else is
 * reported to the logger and becomes `Internal` with a message that leaks
 * nothing of the server's internals.
 */
export function asA2AError(error: unknown, logger: Logger | undefined): A2AError {
  if (A2AError.is(error)) return error;
  logger?.error({ error }, 'Unexpected error while serving an A2A request');
  return new A2AError('Internal', 'The agent failed to handle the request; its server log has the details');
}

/** The JSON-RPC `error` member of an A2AError: `{code, message, data: details}`. */
export function jsonRpcError(error: A2AError): { code: number; message: string; data: unknown[] } {
  return { code: error.code, message: error.message, data: error.details };
}

/** The AIP-193 body of an A2AError: `{error: {code: httpStatus, status, message, details}}`. */
export function restErrorBody(error: A2AError, httpStatus = error.httpStatus) {
  return { error: { code: httpStatus, status: error.grpcStatus, message: error.message, details: error.details } };
}

/**
 * Extra headers an error's answer needs: `WWW-Authenticate` for
 * `Unauthenticated` (RFC 9110 requires it on a 401; with RFC 6750's
 * `error` parameters when the error names one) and for an
 * `insufficient_scope` 403 and `Connection: close`
 * after a refused oversized body, so the rest of it is never read.
 */
export function errorHeaders(error: A2AError, challenge: string | undefined): Record<string, string> | undefined {
  if (error.kind === 'Unauthenticated') return { 'www-authenticate': authChallenge(error, challenge) };
  if (error.kind === 'PermissionDenied' && error.metadata['error']) return { 'www-authenticate': authChallenge(error, challenge) };
  if (error.kind === 'PayloadTooLarge') return { connection: 'close' };
  return undefined;
}

/** True for `application/json`, `application/a2a+json` or no content type (parameters such as charset allowed). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined || value === '') return true;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === JSON_TYPE || type === A2A_JSON_TYPE;
}

/** ContentTypeNotSupported for a request body that is not JSON. */
export function contentTypeError(value: string): A2AError {
  return new A2AError(
    'ContentTypeNotSupported',
    `Content-Type ${value} is not supported; send the body as ${A2A_JSON_TYPE} or ${JSON_TYPE}`,
    { contentType: value },
  );
}

/** HTTP status of a refused request body's media type. */
export const UNSUPPORTED_MEDIA_TYPE = 415;

/** PayloadTooLarge (413) for a body past the limit. */
export function payloadTooLarge(limit: number): A2AError {
  return new A2AError('PayloadTooLarge', `The request body is larger than the ${limit}-byte limit; send a smaller body (or raise maxBodyBytes)`, {
    limit: String(limit),
  });
}

/** The answer for a path this handler does not serve (when there is no framework to pass it on to). */
export function notFoundReply(path: string): TextReply {
  const error = new A2AError('MethodNotFound', `Nothing is served at ${path}; A2A lives at the paths the agent card lists`);
  return jsonReply(404, restErrorBody(error, 404), JSON_TYPE);
}
