/**
 * Push deliveries: a commit that lands begins an attempt for its task's
 * config (the claim taken, the task's state read), which sends once it
 * gets a delivery slot (the next tick its replica runs); the sweep begins
 * attempts for configs whose claim expired with events owed. The receiver
 * remembers the newest state it got (`push-monotonic`).
 */
import { expiredPushClaimsTransition, pushAdvanceTransition, pushClaimTransition } from './db-transitions.js';
import { violate } from './invariants.js';
import { LEASE, type Replica, type World } from './model-state.js';
import { active, statement } from './replica-ops.js';

/** Begins a push attempt of `task` in `replica` when events are owed: the config's claim taken (`pushClaimTransition`) and the task's state read. */
export function pushBegin(w: World, replica: Replica, task: string): void {
  const push = w.db.push[task];
  const row = w.db.tasks[task];
  if (!push || !row || !active(w, replica) || push.delivered >= row.seq || replica.pushes.some((p) => p.task === task)) return;
  const outcome = statement(w, replica, 'push');
  if (outcome === 'transient') return;
  if (pushClaimTransition(w.db, task, replica.id, LEASE) && outcome === 'ok') replica.pushes.push({ task, seq: row.seq, at: w.db.now });
}

/** The sweep's part for pushes (`expiredClaims`): configs whose claim expired with events owed get an attempt here. */
export function sweepPushClaims(w: World, replica: Replica): void {
  for (const task of expiredPushClaimsTransition(w.db)) pushBegin(w, replica, task);
}

/**
 * Attempts that waited for their slot send now: on main at once (their
 * claim was checked before the wait); in the fixed design after a check
 * that the claim is still theirs and the state not delivered yet.
 */
export function sendPushes(w: World, replica: Replica): void {
  const due = replica.pushes.filter((p) => p.at < w.db.now);
  replica.pushes = replica.pushes.filter((p) => p.at >= w.db.now);
  for (const attempt of due) {
    const push = w.db.push[attempt.task];
    // A config a failover lost with its task: nothing to send.
    if (!push) continue;
    if (w.design === 'fixed') {
      if (statement(w, replica, 'push') === 'transient') continue;
      if (push.claimHolder !== replica.id || push.claimExpires === null || push.claimExpires < w.db.now || push.delivered >= attempt.seq) continue;
    }
    const last = w.received[attempt.task] ?? 0;
    if (attempt.seq < last) violate(w, 'push-monotonic', attempt.task, `${replica.id} delivered sequence ${attempt.seq} of ${attempt.task} after ${last}`);
    w.received[attempt.task] = Math.max(last, attempt.seq);
    pushAdvanceTransition(w.db, attempt.task, attempt.seq);
  }
}
