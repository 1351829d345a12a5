/**
 * A client's CancelTask with no grace (`cancelTask` in core's
 * task-cancel.ts): at any replica, a commit with no lease condition (a
 * cancel stands whoever holds the task), then every run of the task aborts
 * (here directly, elsewhere on hearing the commit). The model keeps two
 * terminal states: a canceled row is `failed`, its event `canceled`.
 */
import { sent } from './event-log.js';
import { commitEvent } from './lost-commits.js';
import { type Db, isTerminal, type Replica, type World } from './model-state.js';
import { abortRuns, active, statement } from './replica-ops.js';

/**
 * Model of a cancel's commit (an update with no lease condition): the task
 * is terminal, one event logged. The store leaves the lease columns as they
 * were but refuses every later commit to a terminal task (its update's
 * `state NOT IN` the terminal states); the model releases the lease, to
 * the same effect on runs' commits. False when the task is gone or
 * terminal (TaskNotCancelable).
 */
export function cancelTransition(db: Db, id: string): boolean {
  const row = db.tasks[id];
  if (!row || isTerminal(row.status)) return false;
  Object.assign(row, { status: 'failed', holder: null, epoch: null, expires: null, seq: row.seq + 1 });
  return true;
}

/** `task` is canceled at `replica`: its commit lands (with issue 43's fixes, after what this process sent), the client gets it, every run of it aborts. */
export function cancel(w: World, replica: Replica, task: string): void {
  const row = w.db.tasks[task];
  if (!row || isTerminal(row.status) || !active(w, replica) || statement(w, replica, 'commit') === 'transient') return;
  if (!commitEvent(w, replica, task, 'canceled', 'cancel', (db) => cancelTransition(db, task))) return;
  sent(w, replica, task, w.db.tasks[task]!.seq);
  for (const other of w.replicas) if (other.up) abortRuns(w, other, task, 'aborted');
}
