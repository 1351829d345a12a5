import type { Migration } from '../migrations.js';

/**
 * The schema step that lets several replicas share the tables: the lease of
 * the replica running a task's agent, in the task's row (holder, fencing
 * epoch, expiry, how often it was taken over from a stopped holder), and
 * the claim of the replica delivering a push config's events. Only adds
 * nullable or defaulted columns: instant, and a store of an older release
 * keeps working on the migrated schema.
 */
export const CLUSTER_MIGRATION: Migration = {
  version: 3,
  name: 'task leases and push delivery claims for several replicas',
  sql: (S) => `
    ALTER TABLE ${S}.tasks
      ADD COLUMN lease_holder text COLLATE "C",
      ADD COLUMN lease_epoch integer,
      ADD COLUMN lease_expires_at timestamptz,
      ADD COLUMN lease_takeovers integer NOT NULL DEFAULT 0;
    ALTER TABLE ${S}.push_configs
      ADD COLUMN claim_holder text COLLATE "C",
      ADD COLUMN claim_expires_at timestamptz;
    CREATE INDEX push_configs_claimed ON ${S}.push_configs (claim_expires_at) WHERE claim_holder IS NOT NULL;
  `,
};
