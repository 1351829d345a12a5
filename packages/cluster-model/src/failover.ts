/**
 * A PostgreSQL failover: the primary is gone and a standby is promoted.
 * Synchronous replication loses nothing acknowledged; asynchronous
 * replication loses the newest commits, across tasks, as a standby behind
 * by `lose` event commits would (the database goes back to its state right
 * after an older event commit, from the world's journal). Every replica's
 * connections drop and reconnect to the new primary: its statements fail
 * for `ticks` ticks (the promotion and reconnect), then reach the new one.
 */
import { TAKE_OVER_GAP } from './lost-commits.js';
import type { World } from './model-state.js';

/** How many of the newest event commits an asynchronous failover may lose at most (the journal keeps one state more). */
export const MAX_LOST_COMMITS = 4;

/**
 * Fails the database over, losing the newest `lose` event commits (0: a
 * synchronous standby; fewer when fewer were made since the world began or
 * were journaled, and, when the world's `failoverSparesGaps`, only the
 * newest up to the first numbered after a take-over's gap); the clock goes on, and the epoch sequence does not go
 * back (the model's simplification: a sequence logs ahead of its values).
 */
export function failover(w: World, lose: number, ticks: number): void {
  let at = Math.max(0, w.journal.length - 1 - lose);
  // Within what the take-over gap covers: the commits lost are the gone holder's, none numbered after a gap.
  if (w.failoverSparesGaps) while (at < w.journal.length - 1 && w.journal.slice(at + 1).some((state) => state.top > TAKE_OVER_GAP)) at++;
  if (at < w.journal.length - 1) {
    const { db, stored } = structuredClone(w.journal[at]!);
    w.journal = w.journal.slice(0, at + 1);
    w.db = { ...db, now: w.db.now, nextEpoch: Math.max(db.nextEpoch, w.db.nextEpoch) };
    w.stored = stored;
  }
  for (const replica of w.replicas) if (replica.up) replica.cutUntil = Math.max(replica.cutUntil, w.db.now + ticks);
}
