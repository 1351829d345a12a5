/**
 * What reaches a replica from outside: clients' sends and their retries,
 * waiting calls, an operator's contract step, and the
 * faults of processes (stalls, cut paths, crashes, clean stops).
 */
import { claimTransition, expireOwnTransition } from './db-transitions.js';
import { sent } from './event-log.js';
import { commitEvent, runCommit } from './lost-commits.js';
import { type Fault, LEASE, REFINEMENTS, type Replica, type World } from './model-state.js';
import { abortRuns, active, gone, type RunShape, startRun, statement } from './replica-ops.js';

/** Records that `message` was acknowledged to its client. */
function ack(w: World, task: string, message: string): void {
  const list = (w.acked[task] ??= []);
  if (!list.includes(message)) list.push(message);
}

/** A waiting call on `task` in `replica`, following the local run when one runs it here. */
function wait(w: World, replica: Replica, task: string): void {
  const local = replica.runs.some((r) => r.task === task && !r.aborted);
  replica.waiters.push({ id: w.nextId++, task, deaf: false, local });
}

/**
 * A new message: creates `task` or continues it when it is input-required,
 * by a commit that claims its lease (`claimTransition`). A lost answer
 * leaves the claim in the row and no run (old design); the fixed design
 * reads the row and runs the message when the claim is this replica's.
 */
export function send(w: World, replica: Replica, task: string, shape: RunShape, blocking: boolean): void {
  const row = w.db.tasks[task];
  // A task a failover lost whole is not found (a new task would have a new id).
  if (!active(w, replica) || (row && row.status !== 'input-required') || (!row && w.created[task])) return;
  const message = `m${w.nextId++}`;
  const outcome = statement(w, replica, 'claim');
  if (outcome === 'transient') return;
  if (!row) w.db.push[task] = { delivered: 0, claimHolder: null, claimExpires: null };
  w.created[task] = true;
  commitEvent(w, replica, task, 'submitted', row ? 'continuation' : 'create', (db) => claimTransition(db, task, replica.id, LEASE, 'submitted', 'no', message));
  if (outcome === 'lost-answer') {
    gone(w, task, w.db.tasks[task]!.epoch!, 'lost-claim-answer');
    if (w.design === 'old' || statement(w, replica, 'read') !== 'ok') return;
    const now = w.db.tasks[task]!;
    if (now.holder !== replica.id || now.status !== 'submitted' || now.messages.at(-1) !== message) return;
  }
  startRun(w, replica, task, message, w.db.tasks[task]!.epoch!, shape);
  ack(w, task, message);
  sent(w, replica, task, w.db.tasks[task]!.seq);
  if (blocking) wait(w, replica, task);
}

/**
 * A client sends the last message of `task` again (same message id): a
 * duplicate, answered as the task is, unless the task still waits for that
 * message's run and nobody here runs it: then it claims the run owed
 * (`claimOwedRun`): on main before issue 42, unless another holder's lease
 * is live; in the fixed design, only a row with no holder, or this
 * replica's at an epoch other than the latest it held (a claim whose
 * answer was lost; with `REFINEMENTS.owedClaimSkipsKnown`: a run given up
 * here, or a take-over whose settling failed, is the self-sweep's).
 */
export function retry(w: World, replica: Replica, task: string, shape: RunShape, blocking: boolean): void {
  const row = w.db.tasks[task];
  if (!row || !active(w, replica)) return;
  const message = row.messages.at(-1)!;
  ack(w, task, message);
  sent(w, replica, task, row.seq);
  const mine = replica.runs.some((r) => r.task === task && !r.aborted) || replica.holds[task] !== undefined;
  if (row.status === 'submitted' && !mine) {
    const outcome = statement(w, replica, 'claim');
    if (outcome === 'transient') return;
    // `TaskLeases.claimIfFree`: the latest epoch this process held the task at (`LeaseCondition.heldEpoch`).
    const epochs = replica.known.filter((k) => k.startsWith(`${task}/`)).map((k) => Number(k.slice(task.length + 1)));
    const heldEpoch = w.design === 'fixed' && REFINEMENTS.owedClaimSkipsKnown && epochs.length > 0 ? Math.max(...epochs) : undefined;
    const claimed = claimTransition(w.db, task, replica.id, LEASE, 'submitted', w.design === 'old' ? 'free-or-expired' : 'free-or-mine', undefined, heldEpoch);
    if (claimed && outcome === 'lost-answer') return gone(w, task, w.db.tasks[task]!.epoch!, 'lost-claim-answer');
    if (claimed) startRun(w, replica, task, message, w.db.tasks[task]!.epoch!, shape);
  }
  if (blocking && w.db.tasks[task]!.status !== 'completed' && w.db.tasks[task]!.status !== 'failed') wait(w, replica, task);
}

/** A stream or resubscribe on `task` in `replica`, while the task runs. */
export function subscribe(w: World, replica: Replica, task: string): void {
  const row = w.db.tasks[task];
  if (!row || !active(w, replica) || (row.status !== 'submitted' && row.status !== 'working')) return;
  sent(w, replica, task, row.seq);
  wait(w, replica, task);
}

/**
 * `taskwire-postgres contract` records the `lease-heartbeats` step. The
 * fixed design refuses while a replica of the release before heartbeats
 * holds a live lease or has a heartbeat (as agreed), and, since the model
 * found that not enough (an idle replica of that release holds neither and
 * takes healthy runs over once the step is recorded), while one is
 * connected at all (`REFINEMENTS.contractSeesSessions`).
 */
export function contract(w: World): void {
  if (w.db.contracted) return;
  if (w.design === 'fixed') {
    const prev = w.replicas.filter((r) => r.release === 'prev');
    const ids = new Set(prev.map((r) => r.id));
    const liveLease = Object.values(w.db.tasks).some((t) => t.holder !== null && ids.has(t.holder) && t.expires !== null && t.expires >= w.db.now);
    const beat = [...ids].some((id) => (w.db.heartbeats[id] ?? -1) >= w.db.now);
    if (liveLease || beat || (REFINEMENTS.contractSeesSessions && prev.some((r) => r.up))) return;
  }
  w.db.contracted = true;
}

/** A fault is aimed at `replica`'s next statement of a kind. */
export function inject(replica: Replica, fault: Fault): void {
  replica.faults.push(fault);
}

/** True when a fault may hit `replica` now: it is up, and the others keep one unimpaired replica and no other stall. */
export function mayImpair(w: World, replica: Replica): boolean {
  const others = w.replicas.filter((r) => r !== replica);
  const impaired = (r: Replica) => r.pausedUntil > w.db.now || r.cutUntil > w.db.now;
  return replica.up && !impaired(replica) && others.some((r) => r.up && !impaired(r)) && !others.some(impaired);
}

/** The process stalls for `ticks` (SIGSTOP, a long GC, a VM pause). */
export function pause(w: World, replica: Replica, ticks: number): void {
  if (mayImpair(w, replica)) replica.pausedUntil = w.db.now + ticks;
}

/** The path to the database is cut for `ticks`: every statement fails, the process runs on. */
export function cut(w: World, replica: Replica, ticks: number): void {
  if (mayImpair(w, replica)) replica.cutUntil = w.db.now + ticks;
}

/** Forgets everything a stopped process had; its waiting calls end with their connections. */
function down(w: World, replica: Replica, why: 'crash' | 'stop'): void {
  for (const run of replica.runs) gone(w, run.task, run.epoch, why);
  Object.assign(replica, { up: false, runs: [], holds: {}, waiters: [], pushes: [], faults: [] });
}

/** The process is killed. */
export function crash(w: World, replica: Replica): void {
  if (mayImpair(w, replica)) down(w, replica, 'crash');
}

/**
 * The process stops cleanly: runs aborted, then the coordinator's close
 * (`expireOwnTransition`). With `inFlight`, a grouped commit of a run lands
 * after that (the suspicion of item 5).
 */
export function stop(w: World, replica: Replica, inFlight: boolean): void {
  if (!mayImpair(w, replica)) return;
  const late = replica.runs.find((r) => !r.aborted);
  for (const task of new Set(replica.runs.map((r) => r.task))) abortRuns(w, replica, task, 'stop');
  if (statement(w, replica, 'renew') !== 'transient') expireOwnTransition(w.db, replica.id);
  if (inFlight && late) runCommit(w, replica, late, 'working', 'stop');
  down(w, replica, 'stop');
}

/**
 * A stopped process starts again, under a new holder id. In the fixed
 * design a replica of the release before heartbeats does not start once
 * the step is recorded (rolling back past it is refused or documented as
 * impossible, issue 42's item 1).
 */
export function restart(w: World, replica: Replica): void {
  if (replica.up || (w.design === 'fixed' && replica.release === 'prev' && w.db.contracted)) return;
  replica.restarts++;
  Object.assign(replica, { up: true, known: [], published: {}, id: `${replica.id.split('.')[0]}.${replica.restarts}`, pausedUntil: 0, cutUntil: 0, lastRenew: w.db.now, lastSweep: w.db.now });
}
