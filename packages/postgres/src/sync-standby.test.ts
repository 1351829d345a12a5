import { A2AError } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { createPostgresTaskStore } from './task-store.js';
import { throwawayCluster } from './throwaway-cluster-test-kit.js';
import { until } from './wait-test-kit.js';

/** Runs `sql` on the server at `url` on a connection of its own; resolves its rows. */
async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Names synchronous standbys for the server at `url` (none of them connected when `names` is not empty), at once. */
async function syncStandbys(url: string, names: string): Promise<void> {
  await sql(url, `ALTER SYSTEM SET synchronous_standby_names = '${names}'`);
  await sql(url, 'SELECT pg_reload_conf()');
}

describePostgres('a primary whose synchronous standbys do not answer (the old primary of a failover, back un-demoted)', () => {
  it('acknowledges no commit the standbys did not confirm, and opens no connection to it until they answer again', async () => {
    const cluster = await throwawayCluster();
    try {
      await migrate({ connectionString: cluster.url });
      // No periodic count compaction: a write of its own waiting for the standby would take the one connection.
      const store = await createPostgresTaskStore({ connectionString: cluster.url, connectTimeoutMs: 1_000, statementTimeoutMs: 10_000, poolSize: 1, countCompactionIntervalMs: 0 });
      try {
        const task = testTask('sync-1');
        const version = (await store.commit(commitOf(task, 0, [testEvent(task, 1)]))).version;

        // A standby is named that never answers: a commit waits for it, until an operator cancels the wait (the server
        // then says it committed locally only). That is never acknowledged as stored.
        await syncStandbys(cluster.url, 'nobody');
        const committing = store.commit(commitOf(task, version, [testEvent(task, 2)])).catch((error: unknown) => error);
        await until(async () => (await sql(cluster.url, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query NOT LIKE '%pg_logical_emit_message%'"))[0]);
        const unconfirmed = await committing;
        expect(A2AError.is(unconfirmed)).toBe(true);
        expect(unconfirmed).toMatchObject({ metadata: { retryable: 'true' }, message: expect.stringMatching(/synchronous standbys did not confirm it.*stored whole or not at all/) });

        // A new connection commits a barrier first: while the standbys do not answer, none is opened (retryable).
        const refused = await store.get(task.id).catch((error: unknown) => error);
        expect(refused).toMatchObject({ metadata: { retryable: 'true' }, message: expect.stringMatching(/did not confirm a commit within 800 ms of connecting/) });

        // The standbys answer again (here: none is required): the store serves, and holds the unconfirmed commit, whole.
        await syncStandbys(cluster.url, '');
        const stored = await store.get(task.id);
        expect(stored?.version).toBe(version + 1);
      } finally {
        await store.close();
      }
    } finally {
      await cluster.destroy();
    }
  }, 60_000);
});
