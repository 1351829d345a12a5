import { A2AError } from '../errors.js';
import type { StreamResponse, Task, TaskState } from '../schema/index.js';
import type { TaskRecord } from '../store/task-store.js';
import { isInterrupted, isTerminal } from '../schema/index.js';
import type { Subscription } from './event-hub.js';
import type { TaskEngine } from './task-engine.js';

/**
 * One item of a server stream: a stream response and the sequence number of
 * the task event it reflects (the resume point a transport sends as SSE
 * `id:`, a tRPC tracked id or gRPC metadata).
 */
export interface StreamEvent {
  readonly sequence: number;
  readonly response: StreamResponse;
}

/** The state a stream response leaves its task in, if it says. */
export function stateOf(response: StreamResponse): TaskState | undefined {
  if ('task' in response) return response.task.status.state;
  if ('statusUpdate' in response) return response.statusUpdate.status.state;
  return undefined;
}

/** Where a followed stream starts and when it may stop. */
export interface FollowOptions {
  /** Items sent first (the task snapshot), before the subscription's events. */
  readonly head: readonly StreamEvent[];
  /** Replayed events up to this sequence do not end the stream on an interrupted state unless it is the last. */
  readonly replayUntil: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Yields `head`, then every event of the subscription, in order and once,
 * until the task reaches a terminal state or (the latest) interrupted state,
 * the caller's signal aborts, or the consumer stops; then unsubscribes.
 * `return()` unsubscribes even before the first `next()` (a generator
 * stopped before it starts never runs its `finally`).
 */
export function followTask(engine: TaskEngine, subscription: Subscription, options: FollowOptions): AsyncGenerator<StreamEvent> {
  const events = follow(engine, subscription, options);
  const stop = events.return.bind(events);
  events.return = (value) => {
    engine.hub.unsubscribe(subscription);
    return stop(value);
  };
  return events;
}

async function* follow(engine: TaskEngine, subscription: Subscription, options: FollowOptions): AsyncGenerator<StreamEvent> {
  try {
    for (const item of options.head) {
      yield item;
      if (ends(stateOf(item.response), item.sequence, options.replayUntil)) return;
    }
    for (;;) {
      const stored = await subscription.next(options.signal);
      if (!stored) return;
      yield { sequence: stored.sequence, response: stored.event };
      if (ends(stateOf(stored.event), stored.sequence, options.replayUntil)) return;
    }
  } finally {
    engine.hub.unsubscribe(subscription);
  }
}

function ends(state: TaskState | undefined, sequence: number, replayUntil: number): boolean {
  if (!state) return false;
  if (isTerminal(state)) return true;
  return isInterrupted(state) && sequence >= replayUntil;
}

/** How {@link subscribeToTask} opens a stream. */
export interface SubscribeOptions {
  /** The caller's resume point: the last sequence it has. */
  readonly afterSequence?: number | undefined;
  /** The task as the stream's first item shows it (history projection). */
  readonly snapshot: (task: Task) => Task;
  readonly signal?: AbortSignal | undefined;
}

/**
 * SubscribeToTask over a visible task record:
 * - with `afterSequence` older than the log's end (and still retained), the
 *   events after it are replayed, then live ones follow;
 * - with `afterSequence` at the end (nothing missed), only later events come,
 *   and none at an interrupted state;
 * - otherwise the stream starts with the current task, then live events;
 * - a terminal task with nothing to replay is UnsupportedOperation.
 */
export async function subscribeToTask(engine: TaskEngine, record: TaskRecord, options: SubscribeOptions): Promise<AsyncIterable<StreamEvent>> {
  const { task, lastSequence } = record;
  const after = options.afterSequence;
  const resumable = after !== undefined && after < lastSequence && (await retained(engine, task.id, after));
  if (isTerminal(task.status.state) && !resumable) {
    throw new A2AError('UnsupportedOperation', `Task ${task.id} is ${task.status.state}; there is nothing to subscribe to (use GetTask to read it)`, {
      taskId: task.id,
    });
  }
  const follow = { replayUntil: lastSequence, signal: options.signal };
  if (resumable) {
    const subscription = engine.hub.subscribe(task.id, after);
    subscription.catchUp();
    return followTask(engine, subscription, { ...follow, head: [] });
  }
  const upToDate = after !== undefined && after >= lastSequence;
  if (upToDate && isInterrupted(task.status.state)) return (async function* () {})();
  const subscription = engine.hub.subscribe(task.id, lastSequence);
  const head = upToDate ? [] : [{ sequence: lastSequence, response: { task: options.snapshot(task) } }];
  return followTask(engine, subscription, { ...follow, head });
}

/** True when the store still has the event right after `after` (a resume from there has no gap). */
async function retained(engine: TaskEngine, taskId: string, after: number): Promise<boolean> {
  const [first] = await engine.store.readEvents(taskId, after, 1);
  return first !== undefined && first.sequence === after + 1;
}
