import type { StreamResponse } from '@taskwire/core';
import { messageToV1, taskToV1, v03StreamEventToV1 } from '@taskwire/core';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const V03_KINDS = new Set(['task', 'message', 'status-update', 'artifact-update']);
const WRAPPERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

/** Strips the envelopes an event may come in: a `StreamEvent` (`{ sequence, response }`) and a JSON-RPC response (`result`). */
function unwrap(input: unknown): unknown {
  let value = input;
  if (isRecord(value) && typeof value.sequence === 'number' && isRecord(value.response)) value = value.response;
  if (isRecord(value) && value.jsonrpc !== undefined && isRecord(value.result)) value = value.result;
  return value;
}

/**
 * True for a payload that is a task even without `kind`: a non-empty
 * `history` array and a string `id` or `contextId` (the seed's "task-like"
 * rule, for streams that serialise tasks without their discriminator).
 */
export function isTaskLike(value: unknown): boolean {
  return isRecord(value) && Array.isArray(value.history) && value.history.length > 0 && (typeof value.id === 'string' || typeof value.contextId === 'string');
}

function bare(value: Json): StreamResponse | undefined {
  if (isTaskLike(value)) return { task: taskToV1(value) };
  if (typeof value.taskId === 'string' && isRecord(value.artifact)) return v03StreamEventToV1({ ...value, kind: 'artifact-update' });
  if (typeof value.taskId === 'string' && isRecord(value.status)) return v03StreamEventToV1({ ...value, kind: 'status-update' });
  if (typeof value.id === 'string' && isRecord(value.status)) return { task: taskToV1(value) };
  if (typeof value.messageId === 'string' && Array.isArray(value.parts)) return { message: messageToV1(value) };
  return undefined;
}

function wrapped(value: Json): StreamResponse | undefined {
  const present = WRAPPERS.filter((key) => isRecord(value[key]));
  if (present.length !== 1) return undefined;
  const key = present[0]!;
  const inner = value[key] as Json;
  // The inner object may still be in v0.3 shapes (roles, states, parts): convert it as its kind.
  const kind = { task: 'task', message: 'message', statusUpdate: 'status-update', artifactUpdate: 'artifact-update' }[key];
  return v03StreamEventToV1({ ...inner, kind });
}

/**
 * Recognises what a stream or an API handed over and returns it as a v1.0
 * stream response, or `undefined` when it is none of them. Accepts: v1.0
 * stream responses (`{ task }`, `{ message }`, `{ statusUpdate }`,
 * `{ artifactUpdate }`), v0.3 objects with `kind` (`task`, `message`,
 * `status-update`, `artifact-update`), bare v1.0 objects, task-like objects
 * without `kind` ({@link isTaskLike}), each possibly inside a `StreamEvent`
 * or a JSON-RPC response. Nested v0.3 shapes (lowercase states and roles,
 * `kind` parts) are converted too. Never throws.
 */
export function normalizeEvent(input: unknown): StreamResponse | undefined {
  const value = unwrap(input);
  if (!isRecord(value)) return undefined;
  try {
    if (typeof value.kind === 'string') return V03_KINDS.has(value.kind) ? v03StreamEventToV1(value) : undefined;
    return wrapped(value) ?? bare(value);
  } catch {
    return undefined;
  }
}
