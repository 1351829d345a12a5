import { RUNNING_STATE_LIST } from '../migrations.js';
import { nextEpoch } from './epoch-sequence-migration.js';

/**
 * The coordinator's statements for schema `S` (quoted). Leases live in the
 * task row, kept alive by the holder's heartbeat (`lease_heartbeats`, see
 * `HEARTBEAT_MIGRATION`): `lease_holder` (a replica's process id), `lease_epoch` (the
 * fencing token: drawn from the schema's epoch sequence at each claim or
 * take-over, so an epoch never repeats for a task id, even one deleted and
 * created again), `lease_expires_at` (database time),
 * `lease_takeovers` (take-overs since the run a message started). All times
 * are the database's, so replicas' clocks never matter.
 */
export interface ClusterStatements {
  /** `$1` ids: each task's last sequence (the periodic catch-up of watched tasks). */
  readonly lastSequences: string;
  /**
   * `$1` holder, `$2` ids, `$3` epochs, `$4` ttl ms: renews the holder's
   * heartbeat and the leases still held as given (each task row, for a
   * release without heartbeats), and returns the ids of those lost (taken
   * over, or the task is gone) while their task is not settled.
   * Model: `renewTransition` in packages/cluster-model (its sql-tie test runs this statement against it).
   */
  readonly renew: string;
  /**
   * {@link renew} once the `lease-heartbeats` contract step is recorded:
   * renews the heartbeat alone (one narrow row, whatever the count of runs)
   * and only reads the task rows to find the leases lost. Both forget the
   * heartbeats expired for an hour (processes gone without stopping): a
   * task is then taken over by its row's expiry, which is never later.
   * Model: `beatTransition` in packages/cluster-model (its sql-tie test runs this statement against it).
   */
  readonly beat: string;
  /**
   * `$1` holder, `$2` ttl ms, `$3` take tasks with no lease, `$4` at most
   * this many, `$5` the ids this replica holds (a run here whose renewal is
   * late is not taken from itself): takes over the leases of submitted or
   * working tasks whose lease expired (on the database's clock, both the
   * row's expiry and its holder's heartbeat when it has one: nothing else
   * counts, not a dropped session), bumping
   * the task's version (a stale writer's commit conflicts) and drawing a new
   * epoch from the schema's sequence, one no earlier lease had;
   * returns id, epoch and how many take-overs the run has had. `$6` (at
   * start-up, when this process holds its name's lock, or null): a holder
   * prefix (`<replica name>#`) whose leases are taken whether expired or not
   * when their holder has no session left (`pg_stat_activity` names none
   * with its tag): this replica's earlier process, gone. Rows another
   * replica is taking over are skipped (one winner each).
   * Model: `takeOverTransition` in packages/cluster-model (its sql-tie test runs this statement against it).
   */
  readonly takeOver: string;
  /**
   * The self-sweep: `$1` holder, `$2` ttl ms, `$3` the ids this replica
   * holds, `$4` at most this many. Takes over, as {@link takeOver} does
   * (version bumped, a new epoch, one more take-over), the submitted or
   * working tasks whose row names this holder but that no run here holds
   * (`$3`) once the row's own expiry has passed: a run this replica gave
   * up (stalled, or cut off, for nearly the lease), a claim whose answer
   * was lost, a take-over whose settling commit failed; and at once a row
   * a take-over made (`lease_takeovers` > 0) that no run here holds: a
   * take-over whose answer was lost (waiting for its expiry would add a
   * lease to the one its predecessor already waited). The holder's
   * heartbeat does not count here: it speaks for the runs this replica
   * holds, not for these rows. A claim landing now is never taken (its
   * row's expiry is a whole lease away); one whose answer comes later than
   * that finds its epoch superseded (its commits are refused).
   * Model: `takeOverOwnTransition` in packages/cluster-model (its sql-tie test runs this statement against it).
   */
  readonly takeOverOwn: string;
  /**
   * `$1` id, `$2` holder, `$3` epoch: the row's own expiry passes now, when
   * it still names that lease and the task is submitted or working (a
   * take-over whose settling failed: the next self-sweep takes it again at
   * once, with a new epoch, instead of a lease later).
   * Model: `expireTakenTransition` in packages/cluster-model (its sql-tie test runs this statement against it).
   */
  readonly expireTaken: string;
  /** `$1` holder: makes this replica's remaining leases expire now, its heartbeat gone (a stopping replica hands them over). Model: `expireOwnTransition` (packages/cluster-model). */
  readonly expireOwn: string;
}

/** The coordinator's statements for schema `S` (quoted). */
export function clusterStatements(S: string): ClusterStatements {
  const expiry = (ttl: string) => `now() + ${ttl}::double precision * interval '1 millisecond'`;
  // The holder's heartbeat (`$1`, ttl `$4`): in place once it exists (only expires_at changes, so the update is HOT).
  const beat = `INSERT INTO ${S}.lease_heartbeats AS b (holder, expires_at) VALUES ($1, ${expiry('$4')})
        ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`;
  const forget = `DELETE FROM ${S}.lease_heartbeats WHERE expires_at < now() - interval '1 hour' AND holder <> $1`;
  return {
    lastSequences: `SELECT id, last_sequence FROM ${S}.tasks WHERE id = ANY($1::text[])`,
    renew: `WITH beat AS (${beat}), gone AS (${forget}), held AS (
        SELECT * FROM unnest($2::text[], $3::integer[]) AS h(id, epoch)
      ), renewed AS (
        UPDATE ${S}.tasks t SET lease_expires_at = ${expiry('$4')}
        FROM held h WHERE t.id = h.id AND t.lease_holder = $1 AND t.lease_epoch = h.epoch
        RETURNING t.id
      )
      SELECT h.id FROM held h
      WHERE NOT EXISTS (SELECT 1 FROM renewed r WHERE r.id = h.id)
        AND NOT EXISTS (SELECT 1 FROM ${S}.tasks t WHERE t.id = h.id AND t.state NOT IN ${RUNNING_STATE_LIST})`,
    beat: `WITH beat AS (${beat}), gone AS (${forget})
      SELECT h.id FROM unnest($2::text[], $3::integer[]) AS h(id, epoch)
      LEFT JOIN ${S}.tasks t ON t.id = h.id
      WHERE t.id IS NULL OR (t.state IN ${RUNNING_STATE_LIST} AND (t.lease_holder IS DISTINCT FROM $1 OR t.lease_epoch IS DISTINCT FROM h.epoch))`,
    // The sessions of live replicas are read once, and only at start-up with a name ($6).
    // The ids held ($5, thousands on a busy replica) are compared only with an expired lease
    // of this holder: inside the CASE, whose branches run in order, never for each live row
    // (a prepared statement's array is no constant, so each comparison walks it whole).
    // Only the rows that may be orphans are read (see LEASE_HOLDER_MIGRATION): the distinct holders of running rows,
    // walked one index probe each; the rows past their own expiry of those whose heartbeat expired or is missing (a
    // lateral read per holder, OFFSET 0 keeping it one); rows with no holder when $3; at start-up ($6) the rows of this
    // replica's name; their rows are then found by id (an array, so by the primary key). The CASE below decides, as it
    // always did.
    takeOver: `WITH RECURSIVE live AS MATERIALIZED (
        SELECT application_name FROM pg_stat_activity WHERE $6::text IS NOT NULL AND application_name LIKE 'taskwire %'
      ), holders AS (
        (SELECT t.lease_holder AS holder FROM ${S}.tasks t
          WHERE t.state IN ${RUNNING_STATE_LIST} AND t.lease_holder IS NOT NULL ORDER BY t.lease_holder LIMIT 1)
        UNION ALL
        SELECT (SELECT t.lease_holder FROM ${S}.tasks t
          WHERE t.state IN ${RUNNING_STATE_LIST} AND t.lease_holder > h.holder ORDER BY t.lease_holder LIMIT 1)
        FROM holders h WHERE h.holder IS NOT NULL
      ), candidates AS (
        SELECT c.id FROM holders h LEFT JOIN ${S}.lease_heartbeats b ON b.holder = h.holder
          CROSS JOIN LATERAL (SELECT t.id FROM ${S}.tasks t WHERE t.lease_holder = h.holder AND t.state IN ${RUNNING_STATE_LIST}
            AND (t.lease_expires_at < now() OR t.lease_expires_at IS NULL) OFFSET 0) c
        WHERE h.holder IS NOT NULL AND (b.expires_at IS NULL OR b.expires_at < now())
        UNION ALL
        SELECT t.id FROM ${S}.tasks t WHERE $3::boolean AND t.state IN ${RUNNING_STATE_LIST} AND t.lease_holder IS NULL
        UNION ALL
        SELECT t.id FROM ${S}.tasks t
        WHERE $6::text IS NOT NULL AND t.state IN ${RUNNING_STATE_LIST} AND left(t.lease_holder, length($6::text)) = $6::text
      ), orphans AS (
        SELECT t.id FROM ${S}.tasks t LEFT JOIN ${S}.lease_heartbeats b ON b.holder = t.lease_holder
        WHERE t.id = ANY(ARRAY(SELECT id FROM candidates)) AND t.state IN ${RUNNING_STATE_LIST}
          AND CASE WHEN t.lease_holder IS NULL THEN $3::boolean
                   WHEN greatest(t.lease_expires_at, b.expires_at) < now() THEN t.lease_holder <> $1 OR t.id <> ALL($5::text[])
                   WHEN $6::text IS NULL THEN false
                   ELSE left(t.lease_holder, length($6::text)) = $6::text AND t.lease_holder <> $1
                     AND NOT EXISTS (SELECT 1 FROM live WHERE strpos(live.application_name, ' ' || split_part(t.lease_holder, '#', 2)) > 0) END
        ORDER BY t.id
        LIMIT $4
        FOR UPDATE OF t SKIP LOCKED
      )
      UPDATE ${S}.tasks t
      SET lease_holder = $1, version = t.version + 1, lease_epoch = ${nextEpoch(S)},
          lease_expires_at = ${expiry('$2')}, lease_takeovers = t.lease_takeovers + 1
      FROM orphans o WHERE t.id = o.id
      RETURNING t.id, t.lease_epoch, t.lease_takeovers`,
    // The held ids join as a hashed set (never walked per row).
    takeOverOwn: `WITH mine AS (
        SELECT t.id FROM ${S}.tasks t
        WHERE t.state IN ${RUNNING_STATE_LIST} AND t.lease_holder = $1 AND (t.lease_expires_at < now() OR t.lease_takeovers > 0)
          AND NOT EXISTS (SELECT 1 FROM unnest($3::text[]) AS h(id) WHERE h.id = t.id)
        ORDER BY t.id
        LIMIT $4
        FOR UPDATE OF t SKIP LOCKED
      )
      UPDATE ${S}.tasks t
      SET version = t.version + 1, lease_epoch = ${nextEpoch(S)},
          lease_expires_at = ${expiry('$2')}, lease_takeovers = t.lease_takeovers + 1
      FROM mine m WHERE t.id = m.id
      RETURNING t.id, t.lease_epoch, t.lease_takeovers`,
    expireTaken: `UPDATE ${S}.tasks SET lease_expires_at = now()
      WHERE id = $1 AND lease_holder = $2 AND lease_epoch = $3 AND state IN ${RUNNING_STATE_LIST}`,
    expireOwn: `WITH gone AS (DELETE FROM ${S}.lease_heartbeats WHERE holder = $1)
      UPDATE ${S}.tasks SET lease_expires_at = now() WHERE lease_holder = $1 AND state IN ${RUNNING_STATE_LIST} AND lease_expires_at > now()`,
  };
}
