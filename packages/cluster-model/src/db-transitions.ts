/**
 * The model's database transitions: each is the effect of one SQL statement
 * of `@taskwire/postgres` on the rows, named on both sides (the statement's
 * comment names the transition; `sql-tie.test.ts` runs each statement on a
 * real PostgreSQL from random small states and compares the rows). Times
 * are ticks of the database's clock (`db.now`); `ttl` is in ticks.
 */
import { type Db, isRunning, type Status, type TaskRow } from './model-state.js';

/** PostgreSQL's `greatest`: nulls ignored, null when all are. */
const greatest = (...values: (number | null | undefined)[]): number | null => {
  const known = values.filter((v): v is number => typeof v === 'number');
  return known.length === 0 ? null : Math.max(...known);
};

/** Ticks after which another holder's expired heartbeat is forgotten (the statements' "an hour": 3600 ticks of a second). */
export const FORGET_HEARTBEAT_AFTER = 3600;

/** The heartbeat part of `renew` and `beat`: the holder's row pushed to `now + ttl`, heartbeats expired for an hour forgotten. */
function beatHeartbeat(db: Db, holder: string, ttl: number): void {
  db.heartbeats[holder] = db.now + ttl;
  for (const [other, expires] of Object.entries(db.heartbeats)) {
    if (other !== holder && expires < db.now - FORGET_HEARTBEAT_AFTER) delete db.heartbeats[other];
  }
}

/** A lease held by a replica's run: task id and epoch. */
export type Held = readonly (readonly [string, number])[];

/**
 * Model of `clusterStatements(S).renew` (cluster-sql.ts): beats the heartbeat
 * and renews each held row still the holder's at that epoch; returns the
 * held ids neither renewed nor settled (gone, or running under another lease).
 */
export function renewTransition(db: Db, holder: string, held: Held, ttl: number): string[] {
  beatHeartbeat(db, holder, ttl);
  const renewed = new Set<string>();
  for (const [id, epoch] of held) {
    const row = db.tasks[id];
    if (row && row.holder === holder && row.epoch === epoch) {
      row.expires = db.now + ttl;
      renewed.add(id);
    }
  }
  return held.filter(([id]) => !renewed.has(id) && (db.tasks[id] === undefined || isRunning(db.tasks[id]!.status))).map(([id]) => id);
}

/**
 * Model of `clusterStatements(S).beat` (cluster-sql.ts): beats the heartbeat
 * alone; returns the held ids whose row is gone or running under another
 * holder or epoch.
 */
export function beatTransition(db: Db, holder: string, held: Held, ttl: number): string[] {
  beatHeartbeat(db, holder, ttl);
  return held
    .filter(([id, epoch]) => {
      const row = db.tasks[id];
      return row === undefined || (isRunning(row.status) && (row.holder !== holder || row.epoch !== epoch));
    })
    .map(([id]) => id);
}

/** A row taken over: its id, new epoch and take-over count. */
export interface Taken {
  readonly id: string;
  readonly epoch: number;
  readonly takeovers: number;
}

/** Takes `id` for `holder`: new epoch from the sequence, fresh expiry, one more take-over. */
function take(db: Db, id: string, holder: string, ttl: number): Taken {
  const row = db.tasks[id]!;
  row.holder = holder;
  row.epoch = db.nextEpoch++;
  row.expires = db.now + ttl;
  row.takeovers++;
  return { id, epoch: row.epoch, takeovers: row.takeovers };
}

/**
 * Model of `clusterStatements(S).takeOver` (cluster-sql.ts) with `$6` null
 * (no predecessor proof): takes the running rows with no holder (when
 * `takeFree`) or whose lease (the later of the row's expiry and its holder's
 * heartbeat) passed, except this holder's own rows it still holds; in id
 * order, at most `limit`.
 */
export function takeOverTransition(db: Db, holder: string, ttl: number, takeFree: boolean, limit: number, heldIds: readonly string[]): Taken[] {
  const ids = Object.keys(db.tasks)
    .sort()
    .filter((id) => {
      const row = db.tasks[id]!;
      if (!isRunning(row.status)) return false;
      if (row.holder === null) return takeFree;
      const expiry = greatest(row.expires, db.heartbeats[row.holder]);
      return expiry !== null && expiry < db.now && (row.holder !== holder || !heldIds.includes(id));
    })
    .slice(0, limit);
  return ids.map((id) => take(db, id, holder, ttl));
}

/** Model of `clusterStatements(S).expireOwn` (cluster-sql.ts): the holder's heartbeat deleted, its running rows' unexpired leases made to expire now. */
export function expireOwnTransition(db: Db, holder: string): void {
  delete db.heartbeats[holder];
  for (const row of Object.values(db.tasks)) {
    if (row.holder === holder && isRunning(row.status) && row.expires !== null && row.expires > db.now) row.expires = db.now;
  }
}

/**
 * Model of a commit whose lease condition is a claim (`leaseSql` in
 * task-sql.ts, `held` and `updated`): refused (false) with `ifFree` while
 * another holder's lease is live (`free-or-expired`, the statement before
 * issue 42); `free-or-mine` is the fixed design's owed-run claim (never
 * another holder's row, expired or not, nor the holder's own at
 * `heldEpoch`, the latest epoch it held: `LeaseCondition.heldEpoch`, or
 * one a take-over made: a take-over whose answer was lost).
 * Otherwise the row is the holder's at a new epoch, its take-over count
 * reset; a settled status releases the lease.
 */
export function claimTransition(
  db: Db,
  id: string,
  holder: string,
  ttl: number,
  status: Status,
  ifFree: 'no' | 'free-or-expired' | 'free-or-mine',
  message?: string,
  heldEpoch?: number,
): boolean {
  const row = db.tasks[id];
  if (row && ifFree === 'free-or-mine' && row.holder === holder && ((heldEpoch !== undefined && row.epoch === heldEpoch) || row.takeovers > 0)) return false;
  if (row && ifFree !== 'no' && row.holder !== null && row.holder !== holder) {
    const expiry = greatest(row.expires, db.heartbeats[row.holder]);
    if (ifFree === 'free-or-mine' || !(expiry !== null && expiry <= db.now)) return false;
  }
  const next: TaskRow = row ?? { status, holder: null, epoch: null, expires: null, takeovers: 0, seq: 0, messages: [] };
  db.tasks[id] = next;
  next.status = status;
  if (message !== undefined) {
    next.messages.push(message);
    next.seq++;
  }
  if (status === 'completed' || status === 'failed') Object.assign(next, { holder: null, epoch: null, expires: null });
  else Object.assign(next, { holder, epoch: db.nextEpoch++, expires: db.now + ttl });
  next.takeovers = 0;
  return true;
}

/**
 * Model of a commit whose lease condition is a hold (`leaseSql` in
 * task-sql.ts): refused (false) unless the row's lease is `holder`'s at
 * `epoch`; it logs one event, renews the row's expiry, and a terminal
 * status releases the lease.
 */
export function holdTransition(db: Db, id: string, holder: string, epoch: number, ttl: number, status: Status): boolean {
  const row = db.tasks[id];
  if (!row || row.holder !== holder || row.epoch !== epoch) return false;
  row.status = status;
  row.seq++;
  if (status === 'completed' || status === 'failed') Object.assign(row, { holder: null, epoch: null, expires: null });
  else row.expires = db.now + ttl;
  return true;
}

/**
 * Model of `pushStatements(S, n).claim` (push-sql.ts): the config's
 * delivery claim becomes `holder`'s for `ttl` when nobody holds it, the
 * holder does, or it expired; true when it did.
 */
export function pushClaimTransition(db: Db, id: string, holder: string, ttl: number): boolean {
  const push = db.push[id];
  if (!push) return false;
  if (push.claimHolder !== null && push.claimHolder !== holder && !(push.claimExpires !== null && push.claimExpires < db.now)) return false;
  push.claimHolder = holder;
  push.claimExpires = db.now + ttl;
  return true;
}

/** Model of `pushStatements(S, n).renewClaims` (push-sql.ts): renews the holder's claims among `ids`; returns those it no longer holds. */
export function renewPushClaimsTransition(db: Db, holder: string, ids: readonly string[], ttl: number): string[] {
  return ids.filter((id) => {
    const push = db.push[id];
    if (!push || push.claimHolder !== holder) return true;
    push.claimExpires = db.now + ttl;
    return false;
  });
}

/** Model of `pushStatements(S, n).expiredClaims` (push-sql.ts): the configs whose claim is held and expired (a read). */
export function expiredPushClaimsTransition(db: Db): string[] {
  return Object.keys(db.push).filter((id) => {
    const push = db.push[id]!;
    return push.claimHolder !== null && push.claimExpires !== null && push.claimExpires < db.now;
  });
}

/** Model of `pushStatements(S, n).advance` (push-sql.ts): the config's delivered cursor moves forward to `seq`, never back. */
export function pushAdvanceTransition(db: Db, id: string, seq: number): void {
  const push = db.push[id];
  if (push && push.delivered < seq) push.delivered = seq;
}

/**
 * The release before heartbeats: it renews task rows only and takes over
 * by the row's expiry alone (its statements are not in this release, so
 * nothing ties them).
 */
export const previousRelease = {
  renew(db: Db, holder: string, held: Held, ttl: number): string[] {
    const lost: string[] = [];
    for (const [id, epoch] of held) {
      const row = db.tasks[id];
      if (row && row.holder === holder && row.epoch === epoch) row.expires = db.now + ttl;
      else if (row === undefined || isRunning(row.status)) lost.push(id);
    }
    return lost;
  },
  takeOver(db: Db, holder: string, ttl: number, heldIds: readonly string[]): Taken[] {
    const ids = Object.keys(db.tasks)
      .sort()
      .filter((id) => {
        const row = db.tasks[id]!;
        return isRunning(row.status) && row.holder !== null && row.expires !== null && row.expires < db.now && (row.holder !== holder || !heldIds.includes(id));
      });
    return ids.map((id) => take(db, id, holder, ttl));
  },
};

/**
 * Model of `clusterStatements(S).takeOverOwn` (cluster-sql.ts), the fixed
 * design's self-sweep: takes this holder's own running rows that no live
 * run here holds (`heldIds`) once the row's own expiry passed (the
 * holder's heartbeat does not count), or at once when a take-over made
 * the row (its take-over count above 0), at a new epoch with one more
 * take-over, in id order, at most `limit`, for the service to settle.
 */
export function takeOverOwnTransition(db: Db, holder: string, ttl: number, heldIds: readonly string[], limit: number): Taken[] {
  const ids = Object.keys(db.tasks)
    .sort()
    .filter((id) => {
      const row = db.tasks[id]!;
      return isRunning(row.status) && row.holder === holder && ((row.expires !== null && row.expires < db.now) || row.takeovers > 0) && !heldIds.includes(id);
    })
    .slice(0, limit);
  return ids.map((id) => take(db, id, holder, ttl));
}

/**
 * Model of `clusterStatements(S).expireTaken` (cluster-sql.ts): after a
 * take-over whose settling failed, the row's own expiry passes now, when
 * it still names `holder` at `epoch` and the task is running (the next
 * self-sweep takes it again).
 */
export function expireTakenTransition(db: Db, id: string, holder: string, epoch: number): void {
  const row = db.tasks[id];
  if (row && row.holder === holder && row.epoch === epoch && isRunning(row.status)) row.expires = db.now;
}

/**
 * Model of `TaskStore.commitFrom` (`updateFrom` in task-sql.ts): a commit
 * of `count` events numbered from `first`, the numbers between the stored
 * last sequence and `first` left unused; refused (false) unless the row's
 * `last_sequence` is below `first`, or when `commit` (the commit's own lease
 * transition, logging one event) refuses.
 */
export function commitFromTransition(db: Db, id: string, first: number, count: number, commit: (db: Db) => boolean): boolean {
  const row = db.tasks[id];
  if (!row || row.seq >= first || !commit(db)) return false;
  row.seq = first - 1 + count;
  return true;
}
