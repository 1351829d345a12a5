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
