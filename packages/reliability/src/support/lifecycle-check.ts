import type { StreamEvent, StreamResponse, Task, TaskState } from '@taskwire/core';
import { canTransition, isInterrupted, isTerminal, RESUBMITTED_STATE, stateOf } from '@taskwire/core';

/** A numbered event, as a store keeps it or a stream delivers it. */
export interface NumberedEvent {
  readonly sequence: number;
  readonly response: StreamResponse;
}

/** A store's `StoredEvent` (`event`) as a {@link NumberedEvent}. */
export const numbered = (stored: { sequence: number; event: StreamResponse }): NumberedEvent => ({ sequence: stored.sequence, response: stored.event });

/** True when a status may follow `from`: the transition table, or the resubmission a user message makes from an interrupted state. */
export function mayFollow(from: TaskState, to: TaskState): boolean {
  return canTransition(from, to) || (isInterrupted(from) && to === RESUBMITTED_STATE);
}

/**
 * The problems of one task's event log (empty when it is sound): sequence
 * numbers contiguous from `firstSequence`, the log starting with the task
 * itself when it starts at 1, every status change allowed by the lifecycle's
 * transition table, nothing after a terminal state, and the last state
 * reported equal to `finalState` when given. With `snapshots`, the task
 * itself may stand in for events a reader fell too far behind to get (the
 * store keeps a bounded number per task): a `{ task }` may skip ahead.
 */
export function logProblems(
  events: readonly NumberedEvent[],
  options: { firstSequence?: number; finalState?: TaskState; snapshots?: boolean } = {},
): string[] {
  const problems: string[] = [];
  let expected = options.firstSequence ?? 1;
  let state: TaskState | undefined;
  for (const { sequence, response } of events) {
    const skipsAhead = options.snapshots === true && 'task' in response && sequence > expected;
    if (sequence !== expected && !skipsAhead) problems.push(`sequence ${sequence} where ${expected} was expected`);
    expected = sequence + 1;
    if (sequence === 1 && !('task' in response)) problems.push('the log does not start with the task');
    if (state !== undefined && isTerminal(state)) problems.push(`event ${sequence} after the terminal state ${state}`);
    const next = stateOf(response);
    if (next === undefined) continue;
    if (state !== undefined && !('task' in response) && !mayFollow(state, next)) problems.push(`event ${sequence}: ${state} -> ${next} is not allowed`);
    state = next;
  }
  if (options.finalState !== undefined && state !== options.finalState) {
    problems.push(`the log ends in ${state ?? 'no state'} but the task is ${options.finalState}`);
  }
  return problems;
}

/** How many times a message with `messageId` is in the task's history (its status message included). */
export function occurrences(task: Task, messageId: string): number {
  const inHistory = (task.history ?? []).filter((m) => m.messageId === messageId).length;
  return inHistory + (task.status.message?.messageId === messageId ? 1 : 0);
}

/** Collects a stream's events (and the error that ended it, if any). */
export async function drain(events: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error?: unknown }> {
  const out: StreamEvent[] = [];
  try {
    for await (const event of events) out.push(event);
    return { events: out };
  } catch (error) {
    return { events: out, error };
  }
}
