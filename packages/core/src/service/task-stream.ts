import type { StreamResponse, TaskState } from '../schema/index.js';
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
