import type { StreamResponse, Task, TaskState } from '@taskwire/core';
import { commitOf, testTask } from '@taskwire/core/testing';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { describePostgres, taskCountMismatches } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { backfillStatement, compactionStatement } from './task-counts.js';
import { createPostgresTaskStore, type PostgresTaskStore } from './task-store.js';

const OWNERS = ['alice', 'bob'];
/** The states a worker's task goes through, by its number: every path the lifecycle has to a terminal state. */
const PATHS: TaskState[][] = [
  ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
  ['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'],
  ['TASK_STATE_WORKING', 'TASK_STATE_FAILED'],
  ['TASK_STATE_REJECTED'],
  ['TASK_STATE_WORKING', 'TASK_STATE_WORKING', 'TASK_STATE_CANCELED'],
];

describePostgres('PostgresTaskStore task counts under concurrent writers', (db) => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });
  const open = async (schema: string, options: Parameters<typeof createPostgresTaskStore>[0] = {}): Promise<PostgresTaskStore> => {
    const store = await createPostgresTaskStore({ connectionString: db.url, schema, poolSize: 4, ...options });
    closers.push(() => store.close());
    return store;
  };

  it('stay exact in every snapshot under concurrent commits, batches, deletes, retention sweeps and compactions', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    // Two processes' stores: one batching its updates, one sweeping events by age; both compact.
    const stores = [await open(schema), await open(schema, { retention: { maxEventAgeMs: 1 } })];
    let running = true;
    const loop = async (step: () => Promise<unknown>) => {
      let rounds = 0;
      while (running) {
        await step();
        rounds++;
      }
      return rounds;
    };
    const mismatches: unknown[] = [];
    const background = [
      loop(async () => mismatches.push(...(await taskCountMismatches(db.pool, schema)))),
      loop(() => Promise.all(stores.map((store) => store.compactCounts()))),
      loop(() => stores[1]!.pruneEvents()),
      // A sweep of finished tasks, as an operator's retention job runs it (many rows in one statement).
      loop(() => db.pool.query(`DELETE FROM ${S}.tasks WHERE state IN ('TASK_STATE_FAILED', 'TASK_STATE_REJECTED')`)),
    ];
    const workers = Array.from({ length: 8 }, async (_, w) => {
      const store = stores[w % 2]!;
      const owner = OWNERS[w % 2 ? 0 : 1]!;
      for (let i = 0; i < 25; i++) {
        const id = `w${w}-${i}`;
        let task: Task = testTask(id, { contextId: `c${i % 3}`, state: 'TASK_STATE_SUBMITTED', at: i });
        let { version } = await store.commit(commitOf(task, 0, [{ task }], owner));
        for (const state of PATHS[(w + i) % PATHS.length]!) {
          task = { ...task, status: { state, timestamp: new Date().toISOString() } };
          const event: StreamResponse = { statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } };
          ({ version } = await store.commit(commitOf(task, version, [event], owner)));
        }
        if (i % 4 === 0) await store.delete(id);
      }
    });
    await Promise.all(workers);
    running = false;
    const rounds = await Promise.all(background);
    expect(rounds[0]).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
    await stores[0]!.compactCounts();
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.task_count_deltas`)).rows[0].n)).toBe(0);
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
    for (const owner of OWNERS) {
      for (const status of [undefined, 'TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED', 'TASK_STATE_FAILED'] as const) {
        const rows = await db.pool.query(`SELECT count(*) AS n FROM ${S}.tasks WHERE owner = $1 AND ($2::text IS NULL OR state = $2)`, [owner, status ?? null]);
        expect({ owner, status, totalSize: (await stores[1]!.list({ owner, ...(status && { status }) })).totalSize }).toEqual({ owner, status, totalSize: Number(rows.rows[0].n) });
      }
    }
  }, 60_000);

  it('make no writer or reader wait: commits, creates, deletes and lists of one owner go through while other transactions hold state changes, a compaction and a backfill open', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const seed = await open(schema);
    for (const id of ['t1', 't2', 't3', 't4']) await seed.commit(commitOf(testTask(id, { state: 'TASK_STATE_WORKING' })));
    await seed.commit(commitOf(testTask('t1', { state: 'TASK_STATE_WORKING' }), 1));
    await seed.close(); // its periodic compaction would race the one held open below
    // Transactions left open: a state change of the owner (its deltas not committed), a compaction holding the count lock and
    // the rows it folded, the backfill's statement; each of another connection.
    const holders = await Promise.all([1, 2, 3].map(() => db.pool.connect()));
    closers.push(() => Promise.all(holders.map((client) => client.query('ROLLBACK').finally(() => client.release()))));
    const [changing, compacting, backfilling] = holders as [pg.PoolClient, pg.PoolClient, pg.PoolClient];
    await changing.query('BEGIN');
    await changing.query(`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED', version = version + 1 WHERE id = 't4'`);
    await compacting.query('BEGIN');
    expect((await compacting.query(compactionStatement(S), [schema, 1000])).rows[0]).toMatchObject({ locked: true });
    await backfilling.query('BEGIN');
    await backfilling.query(backfillStatement(S));
    // A writer that would wait fails at once instead of hanging (lock_timeout), so the test says which call waited.
    const pool = new pg.Pool({ connectionString: db.url, max: 2, options: '-c lock_timeout=2000' });
    closers.push(() => pool.end());
    const store = await createPostgresTaskStore({ pool, schema });
    closers.push(() => store.close());
    await store.commit(commitOf(testTask('t1', { state: 'TASK_STATE_COMPLETED' }), 2));
    await store.commit(commitOf(testTask('t2', { state: 'TASK_STATE_COMPLETED' }), 1));
    await store.commit(commitOf(testTask('t5', { state: 'TASK_STATE_WORKING' })));
    expect(await store.delete('t3')).toBe(true);
    expect(await store.compactCounts()).toBe(0);
    // Readers see only what committed: t4's change is not, the compaction is not (its deltas are still counted as deltas).
    expect((await store.list({ owner: 'alice' })).totalSize).toBe(4);
    expect((await store.list({ owner: 'alice', status: 'TASK_STATE_COMPLETED' })).totalSize).toBe(2);
    await changing.query('COMMIT');
    await compacting.query('COMMIT');
    await backfilling.query('ROLLBACK');
    expect((await store.list({ owner: 'alice', status: 'TASK_STATE_COMPLETED' })).totalSize).toBe(3);
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
  });
});
