import { A2AError } from '@taskwire/core';
import type { HttpRequest } from './http-types.js';

/** Decodes UTF-8 and throws on malformed input (never substitutes U+FFFD). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A request body's bytes as text. Bytes that are not UTF-8 are a ParseError
 * (-32700; 400 on HTTP+JSON): replacing them with U+FFFD would make the
 * server act on text the client never sent (a mangled id, a changed message).
 */
export function decodeBody(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw new A2AError('ParseError', 'The request body is not valid UTF-8; send JSON encoded as UTF-8');
  }
}

/**
 * The request body parsed as JSON. An empty body is `empty` when given,
 * else a ParseError; malformed JSON is a ParseError (-32700) saying where it
 * broke. A body a framework already parsed is used as it is.
 */
export async function readJsonBody(request: HttpRequest, empty?: unknown): Promise<unknown> {
  const pre = request.parsedBody;
  if (pre !== undefined && typeof pre !== 'string' && !(pre instanceof Uint8Array)) return pre;
  const text = pre instanceof Uint8Array ? decodeBody(pre) : (pre ?? (await request.body()));
  if (text === '') {
    if (empty !== undefined) return empty;
    throw new A2AError('ParseError', 'The request body is empty; send a JSON document');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new A2AError('ParseError', `The request body is not valid JSON (${(error as Error).message}); fix the JSON and send it again`);
  }
}

/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
