import { reduce } from '../lifecycle/reduce.js';
import type { StreamResponse, Task } from '../schema/index.js';

/**
 * The task after `events` of its log, applied in order to `task` (a stored
 * snapshot) by the lifecycle reducer: a `statusUpdate` or `artifactUpdate`
 * is reduced, a `task` entry replaces the task, a `message` changes
 * nothing. Stores that log append-only commits without rewriting the task
 * (see `CommitRequest.appendOnly`) compute their reads with it. Throws when
 * the reducer refuses an event: the log does not follow from the snapshot.
 */
export function replayEvents(task: Task, events: readonly StreamResponse[]): Task {
  let current = task;
  for (const event of events) {
    if ('task' in event) {
      current = event.task;
      continue;
    }
    if (!('statusUpdate' in event) && !('artifactUpdate' in event)) continue;
    const result = reduce(current, event);
    if (!result.ok) throw new Error(`The event log of task ${task.id} does not follow from its snapshot: ${result.error.message}`);
    current = result.task;
  }
  return current;
}

/**
 * Like {@link replayEvents}, for reads of a store whose log may be damaged:
 * an event that does not follow from what came before is skipped and
 * reported to `skipped` (with its index in `events` and why), so the task
 * still reads with every change that does follow. Never throws.
 */
export function replayEventsSkippingDamage(task: Task, events: readonly StreamResponse[], skipped: (index: number, error: Error) => void): Task {
  try {
    return replayEvents(task, events);
  } catch {
    let current = task;
    for (const [i, event] of events.entries()) {
      try {
        current = replayEvents(current, [event]);
      } catch (error) {
        skipped(i, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return current;
  }
}
