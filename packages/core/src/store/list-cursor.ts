import { A2AError } from '../errors.js';

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/;
/** What `Date.prototype.toISOString` makes (millisecond precision): the common case, keyed without a match array. */
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** The last timestamp keyed and its key: tasks stamped in the same millisecond share one. */
let lastTimestamp: string | undefined;
let lastKey = '';
const SORT_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}$/;

/**
 * The sort key of a status timestamp: a fixed-width string
 * (`YYYY-MM-DDTHH:MM:SS.nnnnnnnnn`) that orders like the instant it names,
 * whatever the fraction's precision. A missing or unparseable timestamp gives
 * `''`, which sorts before (older than) every real timestamp.
 */
export function timestampSortKey(timestamp: string | undefined): string {
  if (timestamp === undefined) return '';
  if (timestamp === lastTimestamp) return lastKey;
  if (timestamp.length === 24 && ISO_MS.test(timestamp)) {
    lastTimestamp = timestamp;
    return (lastKey = `${timestamp.slice(0, 23)}000000`);
  }
  let m = ISO.exec(timestamp);
  if (!m) {
    const ms = Date.parse(timestamp);
    if (Number.isNaN(ms)) return '';
    m = ISO.exec(new Date(ms).toISOString());
    if (!m) return '';
  }
  return `${m[1]}.${(m[2] ?? '').padEnd(9, '0')}`;
}

function toBase64Url(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(token: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const binary = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A position in the ListTasks order: the sort key of a task's status timestamp and its id. */
export interface ListCursor {
  readonly key: string;
  readonly id: string;
}

/** Encodes a cursor as an opaque `pageToken` (base64url of a small JSON array). */
export function encodePageToken(cursor: ListCursor): string {
  return toBase64Url(JSON.stringify(['t1', cursor.key, cursor.id]));
}

/**
 * Decodes a `pageToken` made by {@link encodePageToken}. Anything else throws
 * an `InvalidParams` {@link A2AError} telling the caller to start over.
 */
export function decodePageToken(token: string): ListCursor {
  const text = fromBase64Url(token);
  let value: unknown;
  try {
    value = text === undefined ? undefined : JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 3 && value[0] === 't1') {
    const [, key, id] = value as unknown[];
    if (typeof key === 'string' && typeof id === 'string' && (key === '' || SORT_KEY.test(key))) return { key, id };
  }
  throw new A2AError(
    'InvalidParams',
    'Invalid parameters: pageToken is not a token this server issued; pass the nextPageToken of a previous ListTasks response, or omit it to start from the first page',
  );
}
