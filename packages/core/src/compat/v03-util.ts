import * as z from 'zod';
import { invalidParams } from '../errors.js';
import type { A2AError } from '../errors.js';

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of `entries` without the keys whose value is `undefined` or `null`
 * (v0.3 clients built on Pydantic often send `"taskId": null` for "absent").
 */
export function compact<T extends Record<string, unknown>>(entries: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined && value !== null) out[key] = value;
  return out as T;
}

/** A non-empty string, or `undefined` (empty strings mean "absent" in ProtoJSON). */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * InvalidParams for one field of a v0.3 request, in the same format as the
 * v1.0 validation errors (message `Invalid parameters: <path>: <what>` and a
 * `google.rpc.BadRequest` detail).
 */
export function badV03Param(path: readonly (string | number)[], message: string): A2AError {
  return invalidParams(new z.ZodError([{ code: 'custom', path: [...path], message, input: undefined }]));
}
