import { A2AError, VersionConflictError, type Task } from '@taskwire/core';
import { commitOf, testProgress, testTask } from '@taskwire/core/testing';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from './task-store.js';

/**
 * Two processes whose batches take the same two task rows in opposite
 * orders deadlock; the database rolls one batch back. The interleaving is
 * driven with row locks held by two more connections: batch `a` (x, y)
 * waits for x, batch `b` (y, x) waits for y; x is let go (a takes it and
 * queues for y behind b), then y (b takes it and waits for x, which a holds).
 */
describePostgres('PostgresTaskStore: a batch rolled back by a deadlock', (db) => {
  const pools: pg.Pool[] = [];
  const stores: PostgresTaskStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const pool of pools.splice(0)) await pool.end();
  });
  /** A pool whose connections are named `name` (to find its backend), a store on it. */
  const open = async (schema: string, name: string) => {
    const pool = new pg.Pool({ connectionString: db.url, max: 2, application_name: name });
    pools.push(pool);
    const store = await createPostgresTaskStore({ pool, schema, countCompactionIntervalMs: 0 });
    stores.push(store);
    return store;
  };
  /** Resolves once `check` holds, looking again every 20 ms. */
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  /** The backends blocking the waiting statement of the connections named `name` (none: not waiting on a lock). */
  const blockers = async (name: string): Promise<number[]> => {
    const { rows } = await db.pool.query<{ blockers: number[] }>(
      `SELECT pg_blocking_pids(pid) AS blockers FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [name],
    );
    return rows[0]?.blockers ?? [];
  };

  it('is stored again commit by commit: each commit lands or meets a version conflict, none fails with the rollback', async () => {
    const schema = await db.schema();
    const [a, b] = [await open(schema, 'deadlock-a'), await open(schema, 'deadlock-b')];
    const [x, y] = [testTask('x', { history: 1 }), testTask('y', { history: 1 })] as [Task, Task];
    for (const task of [x, y]) await a.commit(commitOf(task, 0, [{ task }]));
    // Two more connections each hold one of the rows.
    const holders = [await db.pool.connect(), await db.pool.connect()] as [pg.PoolClient, pg.PoolClient];
    const pids: number[] = [];
    for (const [client, id] of [[holders[0], 'x'], [holders[1], 'y']] as const) {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${quoteSchema(schema)}.tasks WHERE id = $1 FOR UPDATE`, [id]);
      pids.push(Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
    }
    try {
      // Each store's two commits, made in one turn, go in one statement: a's as x then y, b's as y then x.
      const commit = (store: PostgresTaskStore, task: Task) => store.commit(commitOf({ ...task, metadata: { by: store === a ? 'a' : 'b' } }, 1, [testProgress(task, 1)]));
      const batchA = Promise.allSettled([commit(a, x), commit(a, y)]);
      await until(async () => (await blockers('deadlock-a')).includes(pids[0]!));
      const batchB = Promise.allSettled([commit(b, y), commit(b, x)]);
      await until(async () => (await blockers('deadlock-b')).includes(pids[1]!));
      // x goes: a takes it and waits for y, behind b.
      await holders[0].query('COMMIT');
      await until(async () => {
        const waiting = await blockers('deadlock-a');
        return waiting.length > 0 && !waiting.includes(pids[0]!);
      });
      // y goes: b takes it and waits for x, which a holds while it waits for y.
      await holders[1].query('COMMIT');
      const outcomes = [...(await batchA), ...(await batchB)];
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason, String(outcome.reason)).toBeInstanceOf(VersionConflictError);
      }
      // One store's commits landed, the other's met them: every task changed once, by one store.
      const stored = [await a.get('x'), await a.get('y')];
      expect(stored.map((r) => r?.version)).toEqual([2, 2]);
      const winner = stored[0]!.task.metadata?.by;
      expect(stored[1]!.task.metadata?.by).toBe(winner);
      const won = winner === 'a' ? outcomes.slice(0, 2) : outcomes.slice(2);
      expect(won.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(outcomes.filter((o) => o.status === 'rejected' && A2AError.is(o.reason))).toEqual([]);
    } finally {
      for (const client of holders) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
      }
    }
  }, 60_000);
});
