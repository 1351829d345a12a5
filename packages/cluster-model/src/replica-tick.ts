/**
 * One tick of the logical clock: each replica that is up and not stalled
 * runs its lease check, and its renewal and sweep when due (overdue ones
 * run at once after a stall, as timers do), its runs' commits, its push
 * deliveries, and answers its waiting calls.
 */
import { beatTransition, previousRelease, renewTransition, takeOverOwnTransition, takeOverTransition, type Taken } from './db-transitions.js';
import { violate } from './invariants.js';
import { runCommit } from './lost-commits.js';
import { GIVE_UP, isRunning, LEASE, RENEW_EVERY, type Replica, SWEEP_EVERY, type World } from './model-state.js';
import { pushBegin, sendPushes, sweepPushClaims } from './push-delivery.js';
import { active, finishRun, gone, settleTaken, statement, stopRun } from './replica-ops.js';

/** Advances the clock one tick and lets every active replica work. */
export function tick(w: World): void {
  w.db.now++;
  for (const replica of w.replicas) {
    if (!active(w, replica)) continue;
    leaseCheck(w, replica);
    if (w.db.now - replica.lastRenew >= RENEW_EVERY) renew(w, replica);
    if (w.db.now - replica.lastSweep >= SWEEP_EVERY) sweep(w, replica);
    progressRuns(w, replica);
    sendPushes(w, replica);
    answerWaiters(w, replica);
  }
}

/** `LeaseKeeper.giveUpStale`: a lease not renewed for nearly its whole time is given up here and its run stopped (no statement). */
function leaseCheck(w: World, replica: Replica): void {
  for (const [task, hold] of Object.entries(replica.holds)) {
    if (w.db.now - hold.renewedAt < GIVE_UP) continue;
    for (const run of replica.runs.filter((r) => r.task === task && r.epoch === hold.epoch && !r.aborted)) stopRun(w, replica, run, 'given-up');
    delete replica.holds[task];
  }
}

/** `LeaseKeeper.renew` with `renew` before the contract step, `beat` after it (the previous release renews rows alone); nothing when no lease is held. */
function renew(w: World, replica: Replica): void {
  replica.lastRenew = w.db.now;
  const held = Object.entries(replica.holds).map(([task, h]) => [task, h.epoch] as const);
  if (held.length === 0) return;
  const outcome = statement(w, replica, 'renew');
  if (outcome === 'transient') return;
  const statementOf = replica.release === 'prev' ? previousRelease.renew : w.db.contracted ? beatTransition : renewTransition;
  const lost = statementOf(w.db, replica.id, held, LEASE);
  if (outcome === 'lost-answer') return;
  for (const [task, epoch] of held) {
    const hold = replica.holds[task];
    if (hold?.epoch !== epoch) continue;
    if (!lost.includes(task)) hold.renewedAt = w.db.now;
    else for (const run of replica.runs.filter((r) => r.task === task && r.epoch === epoch && !r.aborted)) stopRun(w, replica, run, 'lease-lost');
    if (lost.includes(task)) delete replica.holds[task];
  }
}

/** A take-over of a row whose holder runs it healthily (renewed recently, not stalled) breaks `healthy-run-kept`. */
function checkHealthy(w: World, before: Record<string, { holder: string | null; epoch: number | null }>, taken: readonly Taken[]): void {
  for (const { id } of taken) {
    const { holder, epoch } = before[id]!;
    const owner = w.replicas.find((r) => r.id === holder && r.up);
    const hold = owner?.holds[id];
    if (owner && active(w, owner) && owner.cutUntil <= w.db.now && hold?.epoch === epoch && w.db.now - hold.renewedAt < GIVE_UP - RENEW_EVERY) {
      violate(w, 'healthy-run-kept', id, `${id} taken over from ${holder}, which renews it (last at tick ${hold.renewedAt})`);
    }
  }
}

/** The sweep: take-overs of expired leases (and, in the fixed design, the self-sweep of this replica's rows no run here holds), each settled. */
function sweep(w: World, replica: Replica): void {
  replica.lastSweep = w.db.now;
  const heldIds = Object.keys(replica.holds);
  const before = Object.fromEntries(Object.entries(w.db.tasks).map(([id, t]) => [id, { holder: t.holder, epoch: t.epoch }]));
  const outcome = statement(w, replica, 'takeover');
  if (outcome !== 'transient') {
    const taken = replica.release === 'prev' ? previousRelease.takeOver(w.db, replica.id, LEASE, heldIds) : takeOverTransition(w.db, replica.id, LEASE, false, 100, heldIds);
    checkHealthy(w, before, taken);
    for (const t of taken) {
      if (outcome !== 'ok') {
        gone(w, t.id, t.epoch, 'takeover-answer-lost');
        continue;
      }
      settleTaken(w, replica, t, before[t.id]!.holder !== replica.id);
    }
  }
  sweepPushClaims(w, replica);
  if (w.design !== 'fixed' || replica.release === 'prev') return;
  const own = statement(w, replica, 'takeover');
  if (own === 'transient') return;
  for (const t of takeOverOwnTransition(w.db, replica.id, LEASE, Object.keys(replica.holds), 100)) own === 'ok' ? settleTaken(w, replica, t, false) : gone(w, t.id, t.epoch, 'takeover-answer-lost');
}

/** Each run's next commit when due, fenced by its epoch (`holdTransition`); a refused one stops the run. */
function progressRuns(w: World, replica: Replica): void {
  for (const run of [...replica.runs]) {
    if (--run.wait > 0) continue;
    // A lost answer of a run's commit is resolved by the store (the commit's probe): the model counts it landed.
    if (statement(w, replica, 'commit') === 'transient') {
      run.wait = 1;
      continue;
    }
    const status = run.commitsLeft === 1 ? run.ends : 'working';
    const outcome = runCommit(w, replica, run, status);
    if (outcome !== 'landed') {
      if (run.aborted) replica.runs = replica.runs.filter((r) => r !== run);
      else stopRun(w, replica, run, outcome === 'refused' ? 'lease-lost' : 'store-went-back');
      continue;
    }
    const key = `${run.task}/${run.epoch}`;
    const runs = (w.landed[key] ??= []);
    if (!runs.includes(run.id)) runs.push(run.id);
    if (runs.length > 1) violate(w, 'one-run-per-epoch', key, `runs ${runs.join(', ')} all committed to ${run.task} at epoch ${run.epoch}`);
    pushBegin(w, replica, run.task);
    if (--run.commitsLeft === 0) finishRun(replica, run);
    else run.wait = run.every;
  }
}

/** Waiting calls whose task settled are answered (old design: not those that lost their local run). */
function answerWaiters(w: World, replica: Replica): void {
  replica.waiters = replica.waiters.filter((waiter) => {
    const row = w.db.tasks[waiter.task];
    return !(row === undefined || !isRunning(row.status)) || waiter.deaf;
  });
}
