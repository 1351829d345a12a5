/**
 * Issue 43's fixes for commits a database failover lost (core's
 * lost-commits.ts, published-sequences.ts and `TAKE_OVER_SEQUENCE_GAP`),
 * on when the world's `lostCommitsFix` is (and only for replicas of this
 * release): a commit onto a stored log behind what its process sent goes
 * after that (`commitFrom`, the stored task logged first); a run that finds
 * the store behind what it committed fails the task after what it sent and
 * stops; a take-over commits after a gap (its own row's too, unless the
 * world's `ownRowsGapped` is off: the fix as first implemented). Off, every
 * commit numbers its events from the stored last sequence, as before them.
 */
import { commitFromTransition, holdTransition } from './db-transitions.js';
import { type CommitPath, type EventKind, logged } from './event-log.js';
import { type Db, LEASE, type Replica, type Run, type Status, type World } from './model-state.js';

/** How far past the stored last sequence a take-over from another holder numbers its first event (core's `TAKE_OVER_SEQUENCE_GAP`; a test ties the two). */
export const TAKE_OVER_GAP = 1_000_000;

/** True when `replica` has issue 43's fixes. */
const fixed = (w: World, replica: Replica): boolean => w.lostCommitsFix && replica.release === 'new';

/**
 * A commit by `replica` logging one event of `kind` on `task` under
 * `commit` (its lease transition: a claim or a hold, which logs one event);
 * with the fix, when this process sent `task` past the stored last
 * sequence, the stored task and then the event go right after what it sent
 * (`EventCommits`: `commitFrom(request, published + 1)`). True when it landed.
 */
export function commitEvent(w: World, replica: Replica, task: string, kind: EventKind, path: CommitPath, commit: (db: Db) => boolean): boolean {
  const row = w.db.tasks[task];
  const sent = replica.published[task];
  if (fixed(w, replica) && row !== undefined && sent !== undefined && sent > row.seq) {
    if (!commitFromTransition(w.db, task, sent + 1, 2, commit)) return false;
    logged(w, replica, task, sent + 1, ['task', kind], path);
    return true;
  }
  if (!commit(w.db)) return false;
  logged(w, replica, task, w.db.tasks[task]!.seq, [kind], path);
  return true;
}

/**
 * `run`'s commit of `status`, fenced by its epoch (`holdTransition`):
 * `landed`, `refused` (its lease is gone), or, with the fix, `went-back`:
 * the stored task is behind what the run committed (`StoreWentBackError`),
 * so nothing is written over it; the task fails after the newest sequence
 * this process sent, as one `{ task }` event under the run's lease
 * (`settleAfterLoss`: nothing when that lease is gone), and the run ends.
 */
export function runCommit(w: World, replica: Replica, run: Run, status: Status, path: CommitPath = 'run'): 'landed' | 'refused' | 'went-back' {
  const row = w.db.tasks[run.task];
  const hold = (db: Db, to: Status) => holdTransition(db, run.task, replica.id, run.epoch, LEASE, to);
  if (fixed(w, replica) && row !== undefined && row.seq < run.seq) {
    const first = Math.max(run.seq, replica.published[run.task] ?? 0) + 1;
    if (commitFromTransition(w.db, run.task, first, 1, (db) => hold(db, 'failed'))) logged(w, replica, run.task, first, ['task'], 'after-loss');
    return 'went-back';
  }
  if (!commitEvent(w, replica, run.task, status, path, (db) => hold(db, status))) return 'refused';
  run.seq = w.db.tasks[run.task]!.seq;
  return 'landed';
}

/**
 * `replica` has taken `task` over (`settleOrphan`: `TaskEngine.takenOver`),
 * from another holder when `elsewhere`, else its own row (its self-sweep, or
 * its sweep taking its own expired row): with the fix, its next commit goes
 * {@link TAKE_OVER_GAP} past the stored last sequence; an own row's only
 * when the world's `ownRowsGapped` (the code's design).
 */
export function takenOver(w: World, replica: Replica, task: string, elsewhere: boolean): void {
  const row = w.db.tasks[task];
  if (!fixed(w, replica) || row === undefined || !(elsewhere || w.ownRowsGapped)) return;
  replica.published[task] = Math.max(replica.published[task] ?? 0, row.seq + TAKE_OVER_GAP);
}
