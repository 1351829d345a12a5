import { RUNNING_STATE_LIST, type Migration } from '../migrations.js';

/**
 * The schema step that lets the take-over sweep read only the rows of
 * holders whose lease may have expired: running tasks indexed by lease
 * holder and the row's own expiry. The sweep walks the few distinct
 * holders (one index probe each), keeps those whose heartbeat expired or
 * is missing, and reads their rows past their own expiry; the rows of a
 * replica that beats are never read. Only adds a partial index (it holds
 * the running tasks alone): an older release keeps working beside it, its
 * own sweep unchanged (expand; nothing to contract).
 */
export const LEASE_HOLDER_MIGRATION: Migration = {
  version: 9,
  name: 'running tasks by lease holder, for the take-over sweep',
  sql: (S) => `
    CREATE INDEX tasks_running_by_holder ON ${S}.tasks (lease_holder, lease_expires_at) WHERE state IN ${RUNNING_STATE_LIST};
  `,
};
