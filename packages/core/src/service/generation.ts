import { A2AError } from '../errors.js';
import type { CallContext, StreamEvent } from '../calls.js';
import type { ListTasksResponse, SendMessageRequest, StreamResponse, Task } from '../schema/index.js';
import { isTerminal } from '../schema/index.js';
import type { TaskListPage, TaskRecord } from '../store/task-store.js';
import { NEXT_VERSION } from '../version.js';
import type { EventHub } from './event-hub.js';

/*
 * The A2A 1.1 task generation, on calls that negotiate 1.1. A task's
 * generation is its committed event sequence: the task itself is event 1
 * when it is created, and every later event of its log is one status or
 * artifact change. So it is the same on every replica and after a restart,
 * and a stream event's generation is its sequence number.
 */

/** Default of `ProtocolOptions.maxLongPollMs`: how long a GetTask with `currentGeneration` waits at most. */
export const DEFAULT_MAX_LONG_POLL_MS = 30_000;

/** True when the call negotiated A2A 1.1 (`A2A-Version: 1.1`). */
export function speaksNext(context: CallContext): boolean {
  return context.version === NEXT_VERSION;
}

/** Refuses a call that negotiated A2A 1.1 with VersionNotSupported unless the service serves it (`served`). */
export function requireServedVersion(context: CallContext, served: boolean): void {
  if (served || !speaksNext(context)) return;
  throw new A2AError('VersionNotSupported', `A2A version ${NEXT_VERSION} is not served by this agent; send A2A-Version 1.0`, { requestedVersion: NEXT_VERSION });
}

/**
 * Refuses a message whose `ifGenerationMatch` is not the task's generation
 * with TaskGenerationMismatch (its metadata names the task and its
 * generation), before anything runs.
 */
export function requireGeneration(record: TaskRecord, expected: number): void {
  if (record.lastSequence === expected) return;
  throw new A2AError(
    'TaskGenerationMismatch',
    `Task ${record.task.id} is at generation ${record.lastSequence}, not ${expected}: it changed since you read it; read it again and decide`,
    { taskId: record.task.id, currentGeneration: String(record.lastSequence) },
  );
}

/** `task` (the answer made of `record`) with its generation when the call negotiated A2A 1.1; else `task`. */
export function withGeneration(task: Task, record: TaskRecord, context: CallContext): Task {
  return speaksNext(context) ? { ...task, generation: record.lastSequence } : task;
}

/**
 * The generation a message's A2A 1.1 `ifGenerationMatch` asks its task to
 * be at, or undefined when there is no condition to check: not on a 1.1
 * call, or the message names no task (it creates one, and the condition is
 * ignored). The intake checks it against the task it reads (before
 * anything runs), and the commit that applies the message checks it again
 * against the record it replaces (see `TaskEngine.apply`), so a concurrent
 * message that moved the task first makes this one a mismatch.
 */
export function expectedGeneration(params: SendMessageRequest, context: CallContext): number | undefined {
  const expected = params.configuration?.ifGenerationMatch;
  return expected !== undefined && params.message.taskId && speaksNext(context) ? expected : undefined;
}

/**
 * A store's ListTasks page as the answer of a call: each task with its
 * generation (the page's `generations`, when the store gives them) when the
 * call negotiated A2A 1.1; never the store's `generations` member itself.
 */
export function listedWithGenerations(page: TaskListPage, context: CallContext): ListTasksResponse {
  const { generations, ...answer } = page;
  if (generations === undefined || !speaksNext(context)) return answer;
  return { ...answer, tasks: answer.tasks.map((task, i) => ({ ...task, generation: generations[i]! })) };
}

/** A stream's events with their generation (their sequence) on tasks and update events; a message has none. */
export async function* withGenerations(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  for await (const event of events) yield event.sequence > 0 ? { sequence: event.sequence, response: stamped(event.response, event.sequence) } : event;
}

function stamped(response: StreamResponse, generation: number): StreamResponse {
  if ('task' in response) return { task: { ...response.task, generation } };
  if ('statusUpdate' in response) return { statusUpdate: { ...response.statusUpdate, generation } };
  if ('artifactUpdate' in response) return { artifactUpdate: { ...response.artifactUpdate, generation } };
  return response;
}

/**
 * GetTask's long poll: resolves the task once its generation is greater
 * than `current`, at once when it is already or the task is terminal (its
 * generation never moves again), else when the hub delivers its next event
 * (a commit here, or on another replica through the coordinator: no polling
 * of the store), `signal` aborts (the caller left, its deadline passed) or
 * `maxMs` pass; then the task as it is. `read` reads the task (visible to
 * the caller).
 */
export async function pollGeneration(hub: EventHub, taskId: string, current: number, read: () => Promise<TaskRecord>, signal: AbortSignal | undefined, maxMs: number): Promise<TaskRecord> {
  const subscription = hub.subscribe(taskId, current);
  try {
    // Read after subscribing: a commit in between is either in this read or delivered to the subscription.
    const now = await read();
    if (now.lastSequence > current || isTerminal(now.task.status.state)) return now;
    const timeout = AbortSignal.timeout(maxMs);
    await subscription.next(signal ? AbortSignal.any([signal, timeout]) : timeout).catch(() => undefined);
  } finally {
    hub.unsubscribe(subscription);
  }
  return read();
}
