import { randomBytes } from 'node:crypto';
import { timestampSortKey, type TaskQuery, type TaskState, type TaskStore } from '@taskwire/core';
import { commitOf, testTask } from '@taskwire/core/testing';
import { afterAll, expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { listStatement } from './task-list.js';
import { createPostgresTaskStore } from './task-store.js';
import { TASK_COUNT_MIGRATION } from './task-count-migration.js';

type Filter = Omit<TaskQuery, 'owner'>;
const FILTERS: Filter[] = [
  {}, { contextId: 'c1' }, { contextId: 'c2' }, { status: 'TASK_STATE_WORKING' }, { status: 'TASK_STATE_COMPLETED' },
  { contextId: 'c1', status: 'TASK_STATE_COMPLETED' }, { contextId: 'c2', status: 'TASK_STATE_WORKING' },
  { statusTimestampAfter: '2025-01-01T00:00:03Z' }, { contextId: 'c1', statusTimestampAfter: '2025-01-01T00:00:03Z' },
];

/** A task row as the previous release's SQL writes it (it knows nothing of the counters). */
const olderInsert = (S: string) =>
  `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task) VALUES ($1, $2, $3, $4, '', 1, 0, $5)`;

describePostgres('PostgresTaskStore totalSize from counters (migration task counts)', (db) => {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((schema) => db.drop(schema))));

  /** What a full count of the rows says for `filter` (the truth the counters must match). */
  const counted = async (S: string, owner: string, filter: Filter): Promise<number> => {
    const where = ['owner = $1'];
    const values: unknown[] = [owner];
    if (filter.contextId !== undefined) where.push(`context_id = $${values.push(filter.contextId)}`);
    if (filter.status !== undefined) where.push(`state = $${values.push(filter.status)}`);
    if (filter.statusTimestampAfter !== undefined) where.push(`status_key >= $${values.push(timestampSortKey(filter.statusTimestampAfter))}`);
    return Number((await db.pool.query(`SELECT count(*) AS n FROM ${S}.tasks WHERE ${where.join(' AND ')}`, values)).rows[0].n);
  };
  const expectExact = async (store: TaskStore, S: string, owners = ['alice', 'bob']) => {
    for (const owner of owners) {
      for (const filter of FILTERS) {
        const { totalSize } = await store.list({ owner, pageSize: 1, ...filter });
        expect({ owner, filter, totalSize }).toEqual({ owner, filter, totalSize: await counted(S, owner, filter) });
      }
    }
  };

  it('keeps totalSize exact through creates, state and context changes and deletes, by this release and the previous one', async () => {
    const schema = await db.schema();
    made.push(schema);
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    const state = (i: number): TaskState => (i % 3 === 0 ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING');
    for (let i = 0; i < 12; i++) {
      await store.commit(commitOf(testTask(`t${i}`, { contextId: i % 2 ? 'c1' : 'c2', state: 'TASK_STATE_SUBMITTED', at: i }), 0, [], i % 4 ? 'alice' : 'bob'));
    }
    await expectExact(store, S);
    for (let i = 0; i < 12; i += 2) {
      const { version } = (await store.get(`t${i}`))!;
      await store.commit(commitOf(testTask(`t${i}`, { contextId: i % 2 ? 'c1' : 'c2', state: state(i), at: i + 1 }), version, [], i % 4 ? 'alice' : 'bob'));
    }
    await expectExact(store, S);
    await store.delete('t3');
    await store.delete('t4');
    await expectExact(store, S);
    // Writes as the previous release makes them, in one statement and many rows at once.
    await db.pool.query(olderInsert(S), ['old1', 'alice', 'c1', 'TASK_STATE_WORKING', '{}']);
    await db.pool.query(olderInsert(S), ['old2', 'bob', 'c2', 'TASK_STATE_SUBMITTED', '{}']);
    await db.pool.query(`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED' WHERE id IN ('old1', 't1', 't5')`);
    await db.pool.query(`UPDATE ${S}.tasks SET context_id = 'c2' WHERE id = 't7'`);
    await db.pool.query(`UPDATE ${S}.tasks SET last_sequence = last_sequence + 1`);
    await expectExact(store, S);
    await db.pool.query(`DELETE FROM ${S}.tasks WHERE owner = 'bob' OR id = 'old1'`);
    await expectExact(store, S);
    const rows = await db.pool.query(`SELECT state FROM ${S}.task_counts WHERE owner = 'bob' GROUP BY state HAVING sum(n) <> 0`);
    expect(rows.rowCount).toBe(0);
    await store.close();
  });

  it('backfills the counters of a schema that already holds tasks', async () => {
    const schema = `tw_count_${randomBytes(5).toString('hex')}`;
    made.push(schema);
    const S = quoteSchema(schema);
    await db.pool.query(`CREATE SCHEMA ${S}`);
    await db.pool.query(`CREATE TABLE ${S}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const step of MIGRATIONS.filter((m) => m.version < TASK_COUNT_MIGRATION.version)) {
      await db.pool.query(step.sql(S));
      await db.pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
    }
    for (let i = 0; i < 9; i++) {
      await db.pool.query(olderInsert(S), [`o${i}`, i % 2 ? 'alice' : 'bob', `c${i % 3}`, i % 4 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED', '{}']);
    }
    await migrate({ pool: db.pool, schema });
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    await expectExact(store, S);
    await store.close();
  });

  it('answers a page without a count over the owner\'s rows unless statusTimestampAfter asks for one', async () => {
    const schema = await db.schema();
    made.push(schema);
    const S = quoteSchema(schema);
    /** How many plan nodes read the tasks table: the page alone is one. */
    const tasksScans = async (filter: Filter) => {
      const { text, values } = listStatement(S, { owner: 'alice', ...filter });
      const plan = JSON.stringify((await db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]['QUERY PLAN']);
      return plan.match(/"Relation Name":"tasks"/g)?.length ?? 0;
    };
    for (const filter of [{}, { contextId: 'c1' }, { status: 'TASK_STATE_WORKING' as const }, { contextId: 'c1', status: 'TASK_STATE_WORKING' as const }]) {
      expect({ filter, scans: await tasksScans(filter) }).toEqual({ filter, scans: 1 });
    }
    expect(await tasksScans({ statusTimestampAfter: '2025-01-01T00:00:00Z' })).toBe(2);
  });
});
