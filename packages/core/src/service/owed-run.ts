import type { Task } from '../schema/index.js';
import type { TaskRecord } from '../store/task-store.js';
import { VersionConflictError } from '../store/task-store.js';
import { LeaseLostError } from './coordination.js';
import type { EngineParts } from './new-tasks.js';
import { claimEpoch } from './task-leases.js';

/** Version conflicts a claim of an owed run is retried through (each re-reads the task). */
const MAX_CLAIM_ATTEMPTS = 8;

/**
 * True when `task` still waits for the run of the message `messageId`: it
 * is submitted (no agent event since that message) and that message is its
 * last user message.
 */
export function awaitsRunOf(task: Task, messageId: string): boolean {
  if (task.status.state !== 'TASK_STATE_SUBMITTED') return false;
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.role === 'ROLE_USER') return history[i]!.messageId === messageId;
  }
  return false;
}

/**
 * Claims `taskId` for the run of `messageId` that nobody started: the
 * message is on the task already (a client sent it again because the
 * answer to its first send was lost after the commit landed), the task
 * still waits for that message's run ({@link awaitsRunOf}) and nobody runs
 * it. Nobody here: not active here, no lease held here, `idle()` true.
 * Nobody elsewhere, with several processes on the store: the claiming
 * commit (no events) carries `LeaseCondition.ifFree`, so the store refuses
 * it while another process holds a lease, live or expired (an expired one
 * is the take-over sweep's to settle: its run may have started), or while
 * the lease is this process's at an epoch it held (its run here stopped:
 * the self-sweep's to settle); never
 * decided by this process's memory alone. Resolves the claimed record (the task is active
 * here from now on; the new run's epoch is the lease held here), or undefined when
 * the task is someone else's or needs no run. Runs under the task's lock.
 */
export function claimOwedRun(parts: EngineParts, taskId: string, messageId: string, idle: () => boolean): Promise<TaskRecord | undefined> {
  const { lock, active, store, leases } = parts;
  const mine = () => active.has(taskId) || leases?.epochOf(taskId) !== undefined || !idle();
  return lock.run(taskId, async () => {
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS && !mine(); attempt++) {
      const current = await store.get(taskId);
      if (current === undefined || !awaitsRunOf(current.task, messageId) || mine()) return undefined;
      if (leases === undefined) {
        // Alone on the store: this process's runs are all there is.
        active.set(taskId, current);
        return current;
      }
      try {
        const claimed = await store.commit({ task: current.task, expectedVersion: current.version, owner: current.owner, events: [], lease: leases.claimIfFree(taskId) });
        leases.claimed(taskId, claimEpoch(claimed));
        const record: TaskRecord = { ...current, version: claimed.version, lastSequence: claimed.lastSequence };
        active.set(taskId, record);
        return record;
      } catch (error) {
        // Another process holds a live lease: it runs the task, or its lease expires and a sweep settles it.
        if (error instanceof LeaseLostError) return undefined;
        if (!(error instanceof VersionConflictError)) throw error;
      }
    }
    return undefined;
  });
}
