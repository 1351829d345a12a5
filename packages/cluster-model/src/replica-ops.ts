/**
 * What a replica does around its statements: a statement's outcome under
 * the faults injected, runs started and stopped, leases given up, and
 * take-overs settled (`settleOrphan` in core's cluster-link.ts), in the
 * design chosen.
 */
import { expireTakenTransition, holdTransition, type Taken } from './db-transitions.js';
import { commitEvent, takenOver } from './lost-commits.js';
import { pushBegin } from './push-delivery.js';
import { type GoneWhy, LEASE, type Replica, type Run, type StatementKind, type World } from './model-state.js';

/** A statement's outcome: it landed and answered, it did not land, or it landed and its answer was lost. */
export type Outcome = 'ok' | 'transient' | 'lost-answer';

/** The outcome of `replica`'s next statement of `kind`: transient while its path to the database is cut, else the fault aimed at it (used once), else ok. */
export function statement(w: World, replica: Replica, kind: StatementKind): Outcome {
  if (w.db.now < replica.cutUntil) return 'transient';
  const at = replica.faults.findIndex((f) => f.on === kind);
  if (at < 0) return 'ok';
  const [fault] = replica.faults.splice(at, 1);
  return fault!.kind;
}

/** What makes a run: its commits, the ticks between them, how it ends, and whether its agent ignores an abort. */
export interface RunShape {
  readonly commits: number;
  readonly wait: number;
  readonly ends: 'completed' | 'input-required';
  readonly ignoresAbort: boolean;
}

/** The shape of a re-run started by a take-over. */
export const RERUN: RunShape = { commits: 1, wait: 3, ends: 'completed', ignoresAbort: false };

/** Starts the agent on `task` for `message` at `epoch` in `replica`, holding the lease; counts the start. */
export function startRun(w: World, replica: Replica, task: string, message: string, epoch: number, shape: RunShape): Run {
  const run: Run = { id: w.nextId++, task, message, epoch, commitsLeft: shape.commits, wait: shape.wait, every: shape.wait, ends: shape.ends, ignoresAbort: shape.ignoresAbort, aborted: false, seq: w.db.tasks[task]?.seq ?? 0 };
  replica.runs.push(run);
  replica.holds[task] = { epoch, renewedAt: w.db.now };
  replica.known.push(`${task}/${epoch}`);
  const key = `${task}/${message}`;
  w.started[key] = (w.started[key] ?? 0) + 1;
  return run;
}

/** Records why the run of `task` at `epoch` went away (or never started). */
export function gone(w: World, task: string, epoch: number, why: GoneWhy): void {
  w.why[`${task}/${epoch}`] = why;
}

/**
 * Stops `run` in `replica` (its lease lost or given up, or aborted): the
 * lease is no longer held here; an agent that ignores the abort goes on
 * committing at its epoch. In the old design, calls that followed the task
 * through this run hear nothing more.
 */
export function stopRun(w: World, replica: Replica, run: Run, why: GoneWhy): void {
  if (replica.holds[run.task]?.epoch === run.epoch) delete replica.holds[run.task];
  run.aborted = true;
  if (!run.ignoresAbort) replica.runs = replica.runs.filter((r) => r !== run);
  gone(w, run.task, run.epoch, why);
  if (w.design === 'old') for (const waiter of replica.waiters) if (waiter.task === run.task && waiter.local) waiter.deaf = true;
}

/** Aborts every run of `task` in `replica` (`runner.abort`). */
export function abortRuns(w: World, replica: Replica, task: string, why: GoneWhy): void {
  for (const run of replica.runs.filter((r) => r.task === task && !r.aborted)) stopRun(w, replica, run, why);
}

/** Ends `run` after its last commit landed: the lease is released here. */
export function finishRun(replica: Replica, run: Run): void {
  if (replica.holds[run.task]?.epoch === run.epoch) delete replica.holds[run.task];
  replica.runs = replica.runs.filter((r) => r !== run);
}

/**
 * Settles a row this replica took over (`settleOrphan`; `elsewhere`: from
 * another holder): a run here is aborted; its next commit goes after the
 * gap (`takenOver`); it runs again when the take-over count allows (`rerunOrphans`),
 * else it fails by a commit fenced by the epoch taken. A failed settling
 * commit leaves the row this replica's, held by no run, and its expiry is
 * made to pass now (`expireTaken`, when that statement lands) so that the
 * next self-sweep takes it again.
 */
export function settleTaken(w: World, replica: Replica, taken: Taken, elsewhere: boolean): void {
  replica.known.push(`${taken.id}/${taken.epoch}`);
  abortRuns(w, replica, taken.id, 'lease-lost');
  takenOver(w, replica, taken.id, elsewhere);
  const row = w.db.tasks[taken.id]!;
  const message = row.messages.at(-1)!;
  if (taken.takeovers <= w.rerunOrphans && row.status !== 'input-required') {
    startRun(w, replica, taken.id, message, taken.epoch, RERUN);
    return;
  }
  const outcome = statement(w, replica, 'settle');
  if (outcome === 'transient') {
    gone(w, taken.id, taken.epoch, 'settle-failed');
    // The coordinator's `expireTaken` (a statement of its own, fenced by the epoch): the next self-sweep takes the row again.
    if (statement(w, replica, 'settle') !== 'transient') expireTakenTransition(w.db, taken.id, replica.id, taken.epoch);
    return;
  }
  if (commitEvent(w, replica, taken.id, 'failed', 'settle', (db) => holdTransition(db, taken.id, replica.id, taken.epoch, LEASE, 'failed'))) pushBegin(w, replica, taken.id);
}

/** True when `replica` can act now: up and not stalled. */
export const active = (w: World, replica: Replica): boolean => replica.up && replica.pausedUntil <= w.db.now;
