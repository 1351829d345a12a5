import type { Migration } from '../migrations.js';

/**
 * The contract step after which replicas stop renewing each running task's
 * row and keep their leases alive by their heartbeat alone (see
 * {@link HEARTBEAT_MIGRATION}): a release without heartbeats takes a task
 * over when its row's `lease_expires_at` passed, so it must not share the
 * tables once this step is recorded.
 */
export const LEASE_HEARTBEATS_STEP = 'lease-heartbeats';

/**
 * The schema step that makes lease upkeep cost per replica, not per task:
 * `lease_heartbeats` holds one narrow row per replica process (its lease
 * holder id), whose `expires_at` the replica pushes forward each renewal
 * period (an in-place, HOT update: the table keeps most of each page free).
 * A task whose holder has a heartbeat row is taken over only once both the
 * heartbeat and the row's own `lease_expires_at` (set when the run claimed
 * it or last committed) passed, on the database's clock. Until the
 * `lease-heartbeats` contract step, replicas renew the task rows too, so a
 * release without heartbeats (which reads only the rows) sees every lease
 * live. A new schema records the step at once: no older release has used it.
 * Only adds a table: instant, and an older release keeps working.
 */
export const HEARTBEAT_MIGRATION: Migration = {
  version: 8,
  name: 'lease heartbeats, one row per replica',
  sql: (S) => `
    CREATE TABLE ${S}.lease_heartbeats (
      holder text COLLATE "C" PRIMARY KEY,
      expires_at timestamptz NOT NULL
    ) WITH (fillfactor = 10);
    INSERT INTO ${S}.taskwire_contract_steps (step)
      SELECT '${LEASE_HEARTBEATS_STEP}'
      WHERE NOT EXISTS (SELECT 1 FROM ${S}.taskwire_migrations WHERE applied_at < now());
  `,
};

/**
 * When the lease of a task row expires, as SQL over schema `S` (quoted):
 * the later of the row's own expiry (`expires`) and its `holder`'s
 * heartbeat, or the row's alone when the holder has no heartbeat row (a
 * release without heartbeats holds it).
 */
export function leaseExpiry(S: string, holder: string, expires: string): string {
  return `greatest(${expires}, (SELECT b.expires_at FROM ${S}.lease_heartbeats b WHERE b.holder = ${holder}))`;
}
