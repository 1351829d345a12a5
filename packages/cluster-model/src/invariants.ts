/**
 * The invariants, checked after every action (see the package README):
 * orphan-settles, waiter-answered, at-most-once and acknowledged-kept here;
 * one-run-per-epoch, push-monotonic and healthy-run-kept where they happen
 * (replica-tick.ts).
 */
import { ANSWER_WITHIN, type InvariantKind, isRunning, isTerminal, SETTLE_WITHIN, type World } from './model-state.js';

/** Records a violation of `kind` about `subject` (once per kind and subject). */
export function violate(w: World, kind: InvariantKind, subject: string, detail: string, cause?: string): void {
  if (w.violations.some((v) => v.kind === kind && v.detail.startsWith(`${subject}:`))) return;
  w.violations.push({ kind, detail: `${subject}: ${detail}`, ...(cause === undefined ? {} : { cause }) });
}

/** Checks the invariants that are about the state as it stands. */
export function checkInvariants(w: World): void {
  const now = w.db.now;
  for (const [id, row] of Object.entries(w.db.tasks)) {
    if (isRunning(row.status)) {
      const live = w.replicas.some((r) => r.up && r.runs.some((run) => run.task === id && run.epoch === row.epoch));
      if (live) delete w.orphanSince[id];
      else {
        const since = (w.orphanSince[id] ??= now);
        if (now - since > SETTLE_WITHIN) violate(w, 'orphan-settles', id, `${row.status} with no run since tick ${since} (${w.why[`${id}/${row.epoch}`] ?? 'never ran'}); row ${JSON.stringify(row)}`, w.why[`${id}/${row.epoch}`] ?? 'never-ran');
      }
    } else delete w.orphanSince[id];
    for (const message of w.acked[id] ?? []) if (!row.messages.includes(message)) violate(w, 'acknowledged-kept', id, `acknowledged message ${message} is gone`);
    const was = w.terminal[id];
    if (was !== undefined && was !== row.status) violate(w, 'acknowledged-kept', id, `was ${was}, now ${row.status}`);
    if (was === undefined && isTerminal(row.status)) w.terminal[id] = row.status;
  }
  for (const replica of w.replicas) {
    if (!replica.up) continue;
    for (const waiter of replica.waiters) {
      const row = w.db.tasks[waiter.task];
      // Running again (a continuation) before the call heard the settling: it waits for the next one.
      if (row !== undefined && isRunning(row.status)) {
        delete w.settledSeen[waiter.id];
        continue;
      }
      const seen = (w.settledSeen[waiter.id] ??= now);
      if (replica.pausedUntil <= now && now - Math.max(seen, replica.pausedUntil) > ANSWER_WITHIN) {
        violate(w, 'waiter-answered', `${waiter.task}@${replica.id}`, `a call waiting on ${waiter.task} in ${replica.id} is unanswered since it settled (tick ${seen})`);
      }
    }
  }
  for (const [key, count] of Object.entries(w.started)) {
    if (count > 1 + w.rerunOrphans) violate(w, 'at-most-once', key, `message ran ${count} times (rerunOrphans ${w.rerunOrphans})`);
  }
}
