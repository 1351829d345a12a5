import { timestampSortKey, type TaskQuery, type TaskState, type TaskStore } from '@taskwire/core';
import { commitOf, testTask } from '@taskwire/core/testing';
import { afterAll, expect, it } from 'vitest';
import { describePostgres, taskCountMismatches } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { TASK_COUNT_MIGRATION } from './task-count-migration.js';
import { olderInsert, schemaBeforeCounts } from './task-count-test-kit.js';
import { listStatement } from './task-list.js';
import { createPostgresTaskStore } from './task-store.js';
import { until } from './wait-test-kit.js';

type Filter = Omit<TaskQuery, 'owner'>;
const FILTERS: Filter[] = [
  {}, { contextId: 'c1' }, { contextId: 'c2' }, { status: 'TASK_STATE_WORKING' }, { status: 'TASK_STATE_COMPLETED' },
  { contextId: 'c1', status: 'TASK_STATE_COMPLETED' }, { contextId: 'c2', status: 'TASK_STATE_WORKING' },
  { statusTimestampAfter: '2025-01-01T00:00:03Z' }, { contextId: 'c1', statusTimestampAfter: '2025-01-01T00:00:03Z' },
  { status: 'TASK_STATE_WORKING', statusTimestampAfter: '2025-01-01T00:00:03Z' },
];

describePostgres('PostgresTaskStore totalSize from task counts (migration 7)', (db) => {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((schema) => db.drop(schema))));
  const fresh = async () => {
    const schema = await db.schema();
    made.push(schema);
    return schema;
  };

  /** What a full count of the rows says for `filter` (the truth the counts must match). */
  const counted = async (S: string, owner: string, filter: Filter): Promise<number> => {
    const where = ['owner = $1'];
    const values: unknown[] = [owner];
    if (filter.contextId !== undefined) where.push(`context_id = $${values.push(filter.contextId)}`);
    if (filter.status !== undefined) where.push(`state = $${values.push(filter.status)}`);
    if (filter.statusTimestampAfter !== undefined) where.push(`status_key >= $${values.push(timestampSortKey(filter.statusTimestampAfter))}`);
    return Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.tasks WHERE ${where.join(' AND ')}`, values)).rows[0].n);
  };
  const expectExact = async (store: TaskStore, schema: string, owners = ['alice', 'bob']) => {
    for (const owner of owners) {
      for (const filter of FILTERS) {
        const { totalSize } = await store.list({ owner, pageSize: 1, ...filter });
        expect({ owner, filter, totalSize }).toEqual({ owner, filter, totalSize: await counted(quoteSchema(schema), owner, filter) });
      }
    }
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
  };

  it('keeps totalSize exact through creates, state and context changes and deletes, by this release and the previous one, across compactions', async () => {
    const schema = await fresh();
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    const state = (i: number): TaskState => (i % 3 === 0 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING');
    for (let i = 0; i < 12; i++) {
      await store.commit(commitOf(testTask(`t${i}`, { contextId: i % 2 ? 'c1' : 'c2', state: 'TASK_STATE_SUBMITTED', at: i }), 0, [], i % 4 ? 'alice' : 'bob'));
    }
    await expectExact(store, schema);
    await store.compactCounts();
    await expectExact(store, schema);
    // Updates of one process go in batches: one statement moving several tasks.
    await Promise.all(
      Array.from({ length: 6 }, async (_, k) => {
        const i = k * 2;
        const { version } = (await store.get(`t${i}`))!;
        await store.commit(commitOf(testTask(`t${i}`, { contextId: i % 2 ? 'c1' : 'c2', state: state(i), at: i + 1 }), version, [], i % 4 ? 'alice' : 'bob'));
      }),
    );
    await expectExact(store, schema);
    await store.delete('t3');
    await store.delete('t4');
    await expectExact(store, schema);
    // Writes as the previous release makes them, in one statement and many rows at once.
    await db.pool.query(olderInsert(S), ['old1', 'alice', 'c1', 'TASK_STATE_WORKING']);
    await db.pool.query(olderInsert(S), ['old2', 'bob', 'c2', 'TASK_STATE_SUBMITTED']);
    await db.pool.query(`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED' WHERE id IN ('old1', 't1', 't5')`);
    await db.pool.query(`UPDATE ${S}.tasks SET context_id = 'c2' WHERE id = 't7'`);
    await db.pool.query(`UPDATE ${S}.tasks SET owner = 'bob' WHERE id = 't9'`);
    await db.pool.query(`UPDATE ${S}.tasks SET last_sequence = last_sequence + 1`);
    await expectExact(store, schema);
    await store.compactCounts();
    // A sweep of finished tasks, as an operator's retention job would run it.
    await db.pool.query(`DELETE FROM ${S}.tasks WHERE owner = 'bob' OR state = 'TASK_STATE_COMPLETED'`);
    await expectExact(store, schema);
    await store.compactCounts();
    await expectExact(store, schema);
    const { rows } = await db.pool.query(`SELECT state, n FROM ${S}.task_counts WHERE owner = 'bob' AND n <> 0`);
    expect(rows).toEqual([]);
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.task_count_deltas`)).rows[0].n)).toBe(0);
    await store.close();
  });

  it('backfills exactly while writers of the previous release commit during the migration', async () => {
    const schema = await schemaBeforeCounts(db);
    made.push(schema);
    const S = quoteSchema(schema);
    await db.pool.query(
      `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task)
       SELECT 'seed-' || g, CASE WHEN g % 3 = 0 THEN 'bob' ELSE 'alice' END, 'c' || (g % 7),
         CASE WHEN g % 10 = 0 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_COMPLETED' END, '', 1, 0, '{}'
       FROM generate_series(1, 20000) g`,
    );
    // Writers as the previous release's replicas: creates, state changes and deletes, each its own transaction.
    let stop = false;
    let commits = 0;
    const writers = Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        const id = `w${w}-${i}`;
        await db.pool.query(olderInsert(S), [id, w % 2 ? 'alice' : 'bob', 'c1', 'TASK_STATE_WORKING']);
        await db.pool.query(`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED', version = version + 1 WHERE id = $1`, [`seed-${w * 5000 + i + 1}`]);
        if (i % 2) await db.pool.query(`DELETE FROM ${S}.tasks WHERE id = $1`, [`w${w}-${i - 1}`]);
        commits++;
      }
    });
    const result = await migrate({ pool: db.pool, schema });
    const during = commits;
    stop = true;
    await Promise.all(writers);
    expect(result.applied.map((m) => m.version)).toEqual(MIGRATIONS.filter((m) => m.version >= TASK_COUNT_MIGRATION.version).map((m) => m.version));
    expect(during).toBeGreaterThan(0);
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    await expectExact(store, schema);
    // Again: nothing to add, and the counts stay right.
    await db.pool.query(`DELETE FROM ${S}.task_counts_ready`);
    await migrate({ pool: db.pool, schema });
    expect(await taskCountMismatches(db.pool, schema)).toEqual([]);
    await store.close();
  });

  it('counts rows until the counts are whole, then reads the counts', async () => {
    const schema = await schemaBeforeCounts(db);
    made.push(schema);
    const S = quoteSchema(schema);
    for (let i = 0; i < 5; i++) await db.pool.query(olderInsert(S), [`o${i}`, 'alice', `c${i % 2 ? 1 : 2}`, i % 2 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED']);
    // The step (and the later ones) alone, as a migration whose backfill has not run yet (its process died after the commit).
    for (const step of MIGRATIONS.filter((m) => m.version >= TASK_COUNT_MIGRATION.version)) {
      await db.pool.query(step.sql(S));
      await db.pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
    }
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    await db.pool.query(olderInsert(S), ['o9', 'alice', 'c1', 'TASK_STATE_WORKING']);
    expect((await store.list({ owner: 'alice' })).totalSize).toBe(6);
    expect((await store.list({ owner: 'alice', status: 'TASK_STATE_WORKING' })).totalSize).toBe(3);
    expect(await taskCountMismatches(db.pool, schema)).not.toEqual([]);
    await migrate({ pool: db.pool, schema });
    await store.compactCounts();
    await expectExact(store, schema, ['alice']);
    await store.close();
  });

  it('folds the deltas by itself every countCompactionIntervalMs, and refuses a negative interval', async () => {
    const schema = await fresh();
    const S = quoteSchema(schema);
    await expect(createPostgresTaskStore({ pool: db.pool, schema, countCompactionIntervalMs: -1 })).rejects.toThrow(/countCompactionIntervalMs must be 0 or more/);
    const store = await createPostgresTaskStore({ pool: db.pool, schema, countCompactionIntervalMs: 20 });
    for (let i = 0; i < 5; i++) await db.pool.query(olderInsert(S), [`o${i}`, 'alice', 'c1', 'TASK_STATE_WORKING']);
    const deltas = async () => Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.task_count_deltas`)).rows[0].n);
    await until(async () => ((await deltas()) === 0 ? true : undefined));
    expect((await db.pool.query(`SELECT owner, state, n FROM ${S}.task_counts`)).rows).toEqual([{ owner: 'alice', state: 'TASK_STATE_WORKING', n: '5' }]);
    await store.close();
  });

  it('answers an unfiltered or state-filtered page without reading the owner\'s tasks, and counts other filters over their index range', async () => {
    const schema = await fresh();
    const S = quoteSchema(schema);
    await db.pool.query(
      `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task)
       SELECT 't' || g, 'alice', 'c' || (g % 200), CASE WHEN g % 10 = 0 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_COMPLETED' END,
         to_char(timestamp '2025-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS') || '000000', 1, 0, '{}'
       FROM generate_series(1, 20000) g`,
    );
    await db.pool.query(`ANALYZE ${S}.tasks`);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    /** The plan nodes that read the tasks table (the page is one), each with its index condition. */
    const tasksScans = async (filter: Filter) => {
      const { text, values } = listStatement(S, { owner: 'alice', ...filter }, true);
      const found: string[] = [];
      const walk = (node: Record<string, unknown>) => {
        if (node['Relation Name'] === 'tasks') found.push(`${node['Node Type']} ${node['Index Cond'] ?? node['Recheck Cond'] ?? node['Filter'] ?? ''}`);
        for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
      };
      walk((await db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]['QUERY PLAN'][0].Plan);
      return found;
    };
    for (const filter of [{}, { status: 'TASK_STATE_WORKING' as const }]) {
      const scans = await tasksScans(filter);
      expect({ filter, scans: scans.length }).toEqual({ filter, scans: 1 });
      expect((await store.list({ owner: 'alice', pageSize: 1, ...filter })).totalSize).toBe(filter.status ? 2000 : 20000);
    }
    // The count of a context reads the context's range, the one of a timestamp floor the range after it.
    const context = await tasksScans({ contextId: 'c7' });
    expect(context).toHaveLength(2);
    for (const scan of context) expect(scan).toMatch(/context_id = /);
    const after = await tasksScans({ statusTimestampAfter: '2025-01-01T05:00:00Z' });
    expect(after).toHaveLength(2);
    for (const scan of after) expect(scan).toMatch(/status_key >= /);
    await store.close();
  });
});
