import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { createPostgresTaskStore } from './task-store.js';
import { throwawayCluster } from './throwaway-cluster-test-kit.js';

describePostgres('the check of a new connection on a server that refuses one of its functions', () => {
  it('goes on without it: a role that may not emit WAL messages (nor read the control data) still serves', async () => {
    const cluster = await throwawayCluster();
    try {
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      try {
        // As some managed services do: functions of the check revoked from ordinary roles.
        await admin.query('REVOKE EXECUTE ON FUNCTION pg_logical_emit_message(boolean, text, text) FROM PUBLIC');
        await admin.query('REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC');
        await admin.query('CREATE ROLE app LOGIN');
        await admin.query('GRANT CREATE ON DATABASE postgres TO app');
      } finally {
        await admin.end();
      }
      const url = cluster.url.replace('postgres@', 'app@');
      await migrate({ connectionString: url });
      const store = await createPostgresTaskStore({ connectionString: url });
      try {
        const task = testTask('refused-1');
        await store.commit(commitOf(task, 0, [testEvent(task, 1)]));
        expect((await store.get(task.id))?.version).toBe(1);
      } finally {
        await store.close();
      }
    } finally {
      await cluster.destroy();
    }
  }, 60_000);
});
