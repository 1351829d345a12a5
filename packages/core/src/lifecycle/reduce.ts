import type {
  Artifact,
  Message,
  Task,
  TaskArtifactUpdateEvent,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../schema/index.js';
import { isInterrupted, isTerminal } from '../schema/index.js';
import { copyWith } from '../clone.js';
import { defineAppended } from '../lazy-append.js';
import { canTransition, RESUBMITTED_STATE } from './transitions.js';

/**
 * An event the lifecycle reducer applies to a task, in the wire's own
 * vocabulary: a user message that continues the task, a status update or an
 * artifact update.
 */
export type LifecycleEvent =
  | { readonly message: Message; readonly timestamp?: string }
  | { readonly statusUpdate: TaskStatusUpdateEvent }
  | { readonly artifactUpdate: TaskArtifactUpdateEvent };

/** Why the reducer refused an event. `message` says what the caller can do about it. */
export type TransitionError =
  | { readonly code: 'TASK_TERMINAL'; readonly state: TaskState; readonly message: string }
  | { readonly code: 'INVALID_TRANSITION'; readonly from: TaskState; readonly to: TaskState; readonly message: string }
  | { readonly code: 'NOT_AWAITING_INPUT'; readonly state: TaskState; readonly message: string }
  | { readonly code: 'UNKNOWN_ARTIFACT'; readonly artifactId: string; readonly message: string }
  | { readonly code: 'WRONG_TASK'; readonly message: string }
  | { readonly code: 'WRONG_ROLE'; readonly message: string };

/**
 * The reducer's answer: the next task, or a transition error (the task is
 * unchanged). `duplicate` is true when a user message with a messageId the
 * task already holds was ignored (a re-sent message is not appended twice).
 */
export type ReduceResult =
  | { readonly ok: true; readonly task: Task; readonly duplicate: boolean }
  | { readonly ok: false; readonly error: TransitionError };

/**
 * Creates the task a user message starts: state submitted, the message
 * (stamped with the task and context ids) as the first history entry.
 */
export function createTask(message: Message, ids: { taskId: string; contextId: string; timestamp: string }): Task {
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: ids.timestamp },
    history: [copyWith(message, { taskId: ids.taskId, contextId: ids.contextId })],
  };
}

/**
 * Applies one event to a task, purely: returns the next task or a typed
 * error, never mutating its input. Rules:
 * - a terminal task accepts nothing;
 * - a user message continues only an interrupted task (a taskId or contextId
 *   it names must be this task's): the previous status
 *   message moves into history, the message is appended, the task is
 *   resubmitted; a message whose messageId the history holds is a duplicate;
 * - a status update must follow the transition table; the previous status
 *   message moves into history when the status changes;
 * - an artifact update replaces (or adds) the artifact with its id, or with
 *   `append` adds its parts to an existing artifact (an unknown id is an error).
 */
export function reduce(task: Task, event: LifecycleEvent): ReduceResult {
  const state = task.status.state;
  if (isTerminal(state)) {
    return fail({
      code: 'TASK_TERMINAL',
      state,
      message: `Task ${task.id} is ${state} and cannot change; start a new task (it may name this one in referenceTaskIds)`,
    });
  }
  if ('message' in event) return continueWith(task, event.message, event.timestamp);
  if ('statusUpdate' in event) return updateStatus(task, event.statusUpdate);
  return updateArtifact(task, event.artifactUpdate);
}

function fail(error: TransitionError): ReduceResult {
  return { ok: false, error };
}

function sameTask(task: Task, ids: { taskId: string; contextId: string }): TransitionError | undefined {
  if (ids.taskId === task.id && ids.contextId === task.contextId) return undefined;
  return {
    code: 'WRONG_TASK',
    message: `The event names task ${ids.taskId} in context ${ids.contextId}, not task ${task.id} in context ${task.contextId}`,
  };
}

function continueWith(task: Task, message: Message, timestamp: string | undefined): ReduceResult {
  if (message.role !== 'ROLE_USER') {
    return fail({ code: 'WRONG_ROLE', message: 'Only a ROLE_USER message can continue a task; agents speak through status updates' });
  }
  const wrong = sameTask(task, { taskId: message.taskId || task.id, contextId: message.contextId || task.contextId });
  if (wrong) return fail(wrong);
  const history = task.history ?? [];
  if (history.some((m) => m.messageId === message.messageId)) return { ok: true, task, duplicate: true };
  const state = task.status.state;
  if (!isInterrupted(state)) {
    return fail({
      code: 'NOT_AWAITING_INPUT',
      state,
      message: `Task ${task.id} is ${state}; it takes a new message only when it is input-required or auth-required`,
    });
  }
  const stamp = timestamp ?? task.status.timestamp;
  const status: TaskStatus = stamp ? { state: RESUBMITTED_STATE, timestamp: stamp } : { state: RESUBMITTED_STATE };
  const next: Task = {
    ...task,
    status,
    history: [...withStatusMessage(history, task.status), copyWith(message, { taskId: task.id, contextId: task.contextId })],
  };
  return { ok: true, task: next, duplicate: false };
}

function updateStatus(task: Task, update: TaskStatusUpdateEvent): ReduceResult {
  const wrong = sameTask(task, update);
  if (wrong) return fail(wrong);
  const from = task.status.state;
  const to = update.status.state;
  if (!canTransition(from, to)) {
    return fail({ code: 'INVALID_TRANSITION', from, to, message: `Task ${task.id} cannot go from ${from} to ${to}` });
  }
  const history = withStatusMessage(task.history ?? [], task.status);
  const next: Task = { ...task, status: update.status };
  if (history.length > 0) next.history = history as Message[];
  return { ok: true, task: next, duplicate: false };
}

function updateArtifact(task: Task, update: TaskArtifactUpdateEvent): ReduceResult {
  const wrong = sameTask(task, update);
  if (wrong) return fail(wrong);
  const artifacts = task.artifacts ?? [];
  const incoming = update.artifact;
  const index = artifacts.findIndex((a) => a.artifactId === incoming.artifactId);
  let next: Artifact[];
  if (update.append) {
    const current = artifacts[index];
    if (!current) {
      return fail({
        code: 'UNKNOWN_ARTIFACT',
        artifactId: incoming.artifactId,
        message: `Cannot append to artifact ${incoming.artifactId} of task ${task.id}: it does not exist yet; send its first chunk without append`,
      });
    }
    // The previous parts followed by the chunk's, built when first read: the n-th chunk costs what the first did.
    const merged = defineAppended(mergedFields(current, incoming), 'parts', current, incoming.parts);
    next = artifacts.map((a, i) => (i === index ? merged : a));
  } else {
    next = index >= 0 ? artifacts.map((a, i) => (i === index ? incoming : a)) : [...artifacts, incoming];
  }
  return { ok: true, task: { ...task, artifacts: next }, duplicate: false };
}

/**
 * `{ ...current, ...incoming }` with the metadata of both merged (later keys
 * win), without reading either's `parts` (the key keeps its place, its
 * value left for the caller to set).
 */
function mergedFields(current: Artifact, incoming: Artifact): Artifact {
  const merged = {} as Record<string, unknown>;
  for (const source of [current, incoming] as Record<string, unknown>[]) {
    for (const key of Object.keys(source)) {
      const value = key === 'parts' ? undefined : source[key];
      // An own `__proto__` key stays a key, never the prototype.
      if (key === '__proto__') Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true });
      else merged[key] = value;
    }
  }
  if (current.metadata || incoming.metadata) merged.metadata = { ...current.metadata, ...incoming.metadata };
  return merged as unknown as Artifact;
}

/**
 * History with the outgoing status message appended (once, by messageId):
 * `history` itself, shared rather than copied, when there is none to add
 * (a status update without a message costs the same however long the history is).
 */
function withStatusMessage(history: readonly Message[], status: TaskStatus): readonly Message[] {
  const message = status.message;
  if (!message || history.some((m) => m.messageId === message.messageId)) return history;
  return [...history, message];
}
