import { canonicalJson } from '../card-signing/canonical-json.js';
import { A2AError } from '../errors.js';
import type { Message, SendMessageRequest } from '../schema/index.js';
import { isSettled } from '../schema/index.js';
import { VersionConflictError, type TaskRecord } from '../store/task-store.js';
import { ownerOf, type CallContext, type StreamEvent } from '../calls.js';
import type { Started } from './task-intake.js';

/** The longest `Idempotency-Key` taken, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const KEY_FORM = /^[\x21-\x7e]+$/;

/**
 * How a SendMessage begins: with its `Started` intake (`retried` when an
 * `Idempotency-Key` found the task its first send made, which then runs
 * nothing again), or, for a keyed send sent again once its task settled,
 * with that task alone (nothing was taken in).
 */
export type SendStart = { readonly started: Started; readonly retried: boolean } | { readonly settled: TaskRecord };

/** What {@link beginSend} needs of the service. */
export interface SendHost {
  /** Whether `Idempotency-Key`s are honoured (`TaskServiceOptions.protocol.v1_1`). */
  readonly honourKeys: boolean;
  /** Reads a stored task (see `TaskEngine.get`). */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /** Takes the message in (`TaskIntake.begin`). */
  begin(params: SendMessageRequest, context: CallContext): Promise<Started>;
}

/**
 * Begins a SendMessage (or SendStreamingMessage). Without a key to honour
 * (keys off, no `Idempotency-Key`, or a message that names its task) it is
 * the intake's `begin`. A keyed first send gets the task id
 * {@link keyedTaskId} derives from the caller and the key, so every process
 * on the store agrees on it: the first send creates that task (a
 * concurrent one that loses the creating commit is taken as the retry it
 * is); a send again finds it, checks that its message is the one the task
 * began with (else `IdempotencyKeyReused`, before anything runs), and is a
 * duplicate of it (a run owed to it and held by no process is started, as
 * for any message sent again). A settled task (terminal or interrupted)
 * is answered as it is (also when it settles while the send is taken in).
 */
export function beginSend(host: SendHost, params: SendMessageRequest, context: CallContext): Promise<SendStart> {
  // Not async: a send's hot path allocates less.
  const key = context.idempotencyKey;
  if (!host.honourKeys || key === undefined || params.message.taskId) return host.begin(params, context).then(unkeyed);
  return beginKeyed(host, params, context, key);
}

const unkeyed = (started: Started): SendStart => ({ started, retried: false });

async function beginKeyed(host: SendHost, params: SendMessageRequest, context: CallContext, key: string): Promise<SendStart> {
  const taskId = await keyedTaskId(ownerOf(context, params.tenant), checkedKey(key));
  // The message creates its task: an ifGenerationMatch (A2A 1.1) is ignored, as for any first send, also on its retries.
  const configuration = params.configuration && { ...params.configuration, ifGenerationMatch: undefined };
  const keyed = { ...params, message: { ...params.message, taskId }, ...(configuration && { configuration }) };
  const keyedContext = { ...context, clientTaskIds: true };
  for (let attempt = 0; ; attempt++) {
    const existing = await host.get(taskId);
    if (existing) {
      requireSameMessage(existing, params.message, key);
      if (isSettled(existing.task.status.state)) return { settled: existing };
    }
    try {
      return { started: await host.begin(keyed, keyedContext), retried: existing !== undefined };
    } catch (error) {
      // The task moved on since the read: another send with the key created it (this one is its retry), or it ended
      // (a terminal task takes no message, not even one it has). Read it again.
      const raced = existing === undefined ? error instanceof VersionConflictError : A2AError.is(error) && error.kind === 'UnsupportedOperation';
      if (!raced || attempt >= 2) throw error;
    }
  }
}

/**
 * The task id of a first send keyed `key` by the caller `owner` (see
 * `ownerOf`): a version 8 UUID of the SHA-256 of both, the same in every
 * process, different for every caller, and telling nothing of the key.
 */
export async function keyedTaskId(owner: string, key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`taskwire-idempotency\u001f${owner}\u001f${key}`)));
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** A stream that answers with a task as it is (a keyed send sent again after its task settled). */
export async function* settledTask(record: TaskRecord, snapshot: (task: TaskRecord['task']) => TaskRecord['task']): AsyncGenerator<StreamEvent> {
  yield { sequence: record.lastSequence, response: { task: snapshot(record.task) } };
}

function checkedKey(key: string): string {
  if (key.length <= MAX_IDEMPOTENCY_KEY_LENGTH && KEY_FORM.test(key)) return key;
  throw new A2AError('InvalidParams', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (a UUID, say)`);
}

/** Refuses a send whose message is not the one the key's task began with (its taskId and an omitted contextId aside). */
function requireSameMessage(existing: TaskRecord, message: Message, key: string): void {
  const first = existing.task.history?.find((m) => m.role === 'ROLE_USER');
  if (first !== undefined && comparable(first, message.contextId !== undefined) === comparable(message, message.contextId !== undefined)) return;
  throw new A2AError(
    'IdempotencyKeyReused',
    `Idempotency-Key ${JSON.stringify(key)} was sent with another message (task ${existing.task.id}); send a new message with a new key, or this one unchanged`,
    { taskId: existing.task.id },
  );
}

function comparable(message: Message, withContext: boolean): string {
  const { taskId: _taskId, contextId, ...rest } = message;
  return canonicalJson(withContext ? { ...rest, contextId } : rest);
}
