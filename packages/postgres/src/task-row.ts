import { replayEvents, type StreamResponse, type Task } from '@taskwire/core';

/**
 * The task a row stands for: its `task` JSON, with the `pending` events
 * (logged by commits that only appended, after that snapshot) reduced onto it.
 */
export function taskOfRow(task: string, pending: readonly string[] | null): Task {
  const snapshot = JSON.parse(task) as Task;
  if (pending === null || pending.length === 0) return snapshot;
  return replayEvents(
    snapshot,
    pending.map((event) => JSON.parse(event) as StreamResponse),
  );
}
