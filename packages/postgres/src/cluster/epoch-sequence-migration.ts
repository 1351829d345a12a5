import type { Migration } from '../migrations.js';

/** The first epoch the sequence hands out: above any task version an older release uses as an epoch. */
export const FIRST_SEQUENCED_EPOCH = 1_000_000_000;

/**
 * The schema step that makes lease epochs unique per schema: claims and
 * take-overs draw a task's new epoch from the sequence
 * `task_lease_epochs` (see {@link nextEpoch}) instead of using its
 * version, so a task deleted and created again with the same id (its
 * version starting at 1 again) never gets an epoch one of its earlier runs
 * had, and a stale run of the deleted task cannot pass a lease condition of
 * the new one. `lease_epoch` stays `integer` (widening it would rewrite the
 * table and change the type an older release reads): the sequence starts
 * at {@link FIRST_SEQUENCED_EPOCH}, above the versions the previous release
 * still uses as epochs when it claims, and runs to the integer maximum
 * (over a billion claims) before it cycles back to its start. Only adds a
 * sequence: instant, and an older release keeps working.
 */
export const EPOCH_SEQUENCE_MIGRATION: Migration = {
  version: 6,
  name: 'lease epochs from a sequence, never repeated for a task id',
  sql: (S) => `
    CREATE SEQUENCE ${S}.task_lease_epochs AS integer
      MINVALUE ${FIRST_SEQUENCED_EPOCH} START WITH ${FIRST_SEQUENCED_EPOCH} CYCLE;
  `,
};

/** The SQL expression of the next lease epoch of schema `S` (quoted): a value of the sequence of {@link EPOCH_SEQUENCE_MIGRATION}. */
export function nextEpoch(S: string): string {
  return `nextval('${`${S}.task_lease_epochs`.replace(/'/g, "''")}'::regclass)::integer`;
}
