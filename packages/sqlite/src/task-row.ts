import { replayEventsSkippingDamage, type Logger, type StreamResponse, type Task } from '@taskwire/core';

/**
 * The task a row stands for: its `task` JSON with the `pending` events
 * (a JSON array, logged after that snapshot by commits that only appended)
 * reduced onto it. An event that does not follow from what came before
 * (a damaged log) is skipped and reported through `logger`, so the task
 * still reads. Throws only when the JSON itself does not parse.
 */
export function taskOfRow(task: string, pending: string | null, logger?: Logger): Task {
  const snapshot = JSON.parse(task) as Task;
  const events = pending === null ? [] : (JSON.parse(pending) as StreamResponse[]);
  if (events.length === 0) return snapshot;
  return replayEventsSkippingDamage(snapshot, events, (i, error) =>
    logger?.warn(
      { taskId: snapshot.id, pendingEvent: i + 1, error: error.message },
      'Taskwire sqlite: an event logged after the task snapshot does not follow from it (damaged log); read without it',
    ),
  );
}
