import { replayEventsSkippingDamage, type Logger, type StreamResponse, type Task } from '@taskwire/core';

/**
 * The task a row stands for: its `task` JSON, with the `pending` events
 * (logged by commits that only appended, after that snapshot) reduced onto
 * it. An event that does not follow from what came before (its row was
 * damaged: say, an older release deleted an event the snapshot needed) is
 * skipped and reported through `logger`, so the task still reads, with
 * every change that does follow. Throws only when the JSON itself does not
 * parse.
 */
export function taskOfRow(task: string, pending: readonly string[] | null, logger?: Logger): Task {
  const snapshot = JSON.parse(task) as Task;
  if (pending === null || pending.length === 0) return snapshot;
  const events = pending.map((event) => JSON.parse(event) as StreamResponse);
  return replayEventsSkippingDamage(snapshot, events, (i, error) =>
    logger?.warn(
      { taskId: snapshot.id, pendingEvent: i + 1, error: error.message },
      'Taskwire postgres: an event logged after the task snapshot does not follow from it (damaged log); read without it',
    ),
  );
}
