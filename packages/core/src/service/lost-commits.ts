import type { LifecycleEvent } from '../lifecycle/index.js';
import { randomId } from '../random-id.js';
import { isTerminal, type Message, type StreamResponse } from '../schema/index.js';
import type { LeaseCondition } from '../store/lease-condition.js';
import type { TaskRecord } from '../store/task-store.js';
import { LeaseLostError } from './coordination.js';
import { reduceGroup } from './event-group.js';
import type { EngineParts } from './new-tasks.js';
import type { StatusClock } from './status-clock.js';

/** What a task settled after lost commits says. */
export const LOST_COMMITS_MESSAGE =
  'The task store lost the last events of this task (a database failover with asynchronous replication): the task failed after the last event this server published. Send the request again.';

/**
 * The store holds an older version of a task than this process already
 * committed (a database failover lost its last commits): the run ends as on
 * a lost lease, and nothing is written onto the older version, whose next
 * sequence numbers clients may already have seen with other events.
 */
export class StoreWentBackError extends LeaseLostError {
  constructor(taskId: string, committed: number, stored: number) {
    super(taskId);
    this.message = `The task store holds version ${stored} of task ${taskId}, older than version ${committed} this process committed (the database lost recent commits, as after a failover): the run stops here rather than write over events clients may have seen`;
  }
}

/**
 * Settles a task whose store went back (see {@link StoreWentBackError}),
 * when the store can leave a gap in the log (`TaskStore.commitFrom`):
 * `known` is the task as this process last committed and published it, at
 * a sequence the store no longer reaches (it holds version `storedVersion`).
 * The task as `known` shows it, failed with {@link LOST_COMMITS_MESSAGE},
 * is logged whole (a `{ task }` event, as a reader that missed events gets
 * it) right after `known.lastSequence`, or `after` (the newest sequence
 * this process sent) when higher: the numbers the store lost stay unused,
 * so none a client saw comes back with other content. Committed under
 * `lease` (the condition of the commit that found the loss: another holder
 * or a further commit refuses it). Subscribers and waiters here hear of it.
 * Resolves the stored record, or `undefined` when nothing was stored (no
 * such store, a terminal or refusing task, a refused or failed commit:
 * whoever takes the task over settles it then).
 */
export async function settleAfterLoss(
  parts: EngineParts,
  clock: StatusClock,
  known: TaskRecord,
  storedVersion: number,
  lease: LeaseCondition | undefined,
  after = known.lastSequence,
): Promise<TaskRecord | undefined> {
  const { task } = known;
  if (parts.store.commitFrom === undefined || isTerminal(task.status.state)) return undefined;
  const ids = { taskId: task.id, contextId: task.contextId };
  const message: Message = { messageId: randomId(), role: 'ROLE_AGENT', parts: [{ text: LOST_COMMITS_MESSAGE }], ...ids };
  const failed: LifecycleEvent = clock.stamp({ statusUpdate: { ...ids, status: { state: 'TASK_STATE_FAILED', message } } });
  const group = reduceGroup(task, [failed]);
  if (group.entries.length === 0) return undefined;
  const entry: StreamResponse = { task: group.task };
  let committed;
  try {
    committed = await parts.store.commitFrom({ task: group.task, expectedVersion: storedVersion, owner: known.owner, events: [entry], lease }, Math.max(after, known.lastSequence) + 1);
  } catch {
    return undefined;
  }
  const record: TaskRecord = { task: group.task, owner: known.owner, version: committed.version, lastSequence: committed.lastSequence, trace: known.trace };
  if (parts.active.has(task.id)) parts.active.set(task.id, record);
  parts.publish(task.id, [entry], committed.firstSequence);
  if (parts.outcomes.waiting) parts.outcomes.settle(task.id, { record });
  return record;
}
