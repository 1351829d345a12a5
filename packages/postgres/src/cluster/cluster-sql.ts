import { RUNNING_STATE_LIST } from '../migrations.js';

/**
 * The coordinator's statements for schema `S` (quoted). Leases live in the
 * task row: `lease_holder` (a replica's process key, as text),
 * `lease_epoch` (the task's version when the lease was taken: the fencing
 * token), `lease_expires_at` (database time), `lease_takeovers`. All times
 * are the database's, so replicas' clocks never matter.
 */
export interface ClusterStatements {
  /** `$1` ids: each task's last sequence (the periodic catch-up of watched tasks). */
  readonly lastSequences: string;
  /**
   * `$1` holder, `$2` ids, `$3` epochs, `$4` ttl ms: renews the leases still
   * held as given, and returns the ids of those lost (taken over, or the
   * task is gone) while their task is not settled.
   */
  readonly renew: string;
  /**
   * `$1` holder, `$2` ttl ms, `$3` take tasks with no lease, `$4` trust the
   * liveness locks, `$5` the liveness lock class, `$6` at most this many:
   * takes over the leases of submitted or working tasks whose holder
   * stopped (lease expired, or with `$4` its liveness lock is gone), each
   * at the task's current version as the new epoch; returns id and epoch.
   * `$7`: the ids this replica holds (a run here whose renewal is late is
   * not taken from itself).
   * Rows another replica is taking over are skipped (one winner each).
   */
  readonly takeOver: string;
  /** `$1` holder: makes this replica's remaining leases expire now (a stopping replica hands them over). */
  readonly expireOwn: string;
}

/** The coordinator's statements for schema `S` (quoted). */
export function clusterStatements(S: string): ClusterStatements {
  const expiry = (ttl: string) => `now() + ${ttl}::double precision * interval '1 millisecond'`;
  return {
    lastSequences: `SELECT id, last_sequence FROM ${S}.tasks WHERE id = ANY($1::text[])`,
    renew: `WITH held AS (
        SELECT * FROM unnest($2::text[], $3::integer[]) AS h(id, epoch)
      ), renewed AS (
        UPDATE ${S}.tasks t SET lease_expires_at = ${expiry('$4')}
        FROM held h WHERE t.id = h.id AND t.lease_holder = $1 AND t.lease_epoch = h.epoch
        RETURNING t.id
      )
      SELECT h.id FROM held h
      WHERE NOT EXISTS (SELECT 1 FROM renewed r WHERE r.id = h.id)
        AND NOT EXISTS (SELECT 1 FROM ${S}.tasks t WHERE t.id = h.id AND t.state NOT IN ${RUNNING_STATE_LIST})`,
    takeOver: `WITH live AS MATERIALIZED (
        SELECT l.objid::text AS holder FROM pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = $5::integer::oid
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      ), orphans AS (
        SELECT t.id FROM ${S}.tasks t
        WHERE t.state IN ${RUNNING_STATE_LIST}
          AND CASE WHEN t.lease_holder IS NULL THEN $3::boolean
                   ELSE t.lease_expires_at < now()
                     OR ($4::boolean AND t.lease_holder <> $1 AND NOT EXISTS (SELECT 1 FROM live WHERE live.holder = t.lease_holder))
              END
          AND (t.lease_holder IS DISTINCT FROM $1 OR t.id <> ALL($7::text[]))
        ORDER BY t.id
        LIMIT $6
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${S}.tasks t
      SET lease_holder = $1, lease_epoch = t.version, lease_expires_at = ${expiry('$2')}, lease_takeovers = t.lease_takeovers + 1
      FROM orphans o WHERE t.id = o.id
      RETURNING t.id, t.lease_epoch, t.lease_takeovers`,
    expireOwn: `UPDATE ${S}.tasks SET lease_expires_at = now() WHERE lease_holder = $1 AND state IN ${RUNNING_STATE_LIST}`,
  };
}
