import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { batchStatement, batchValues, type BatchedUpdate } from './task-batch-sql.js';

/**
 * The batch statement runs as a prepared statement, so after a few runs
 * PostgreSQL plans it once for any batch (a generic plan), guessing 100 rows
 * for each unnested array. Its plan must still reach each row through the
 * primary key: a hash join over a scan of the tasks table costs a walk over
 * every stored task (and every dead row version) per batch.
 */
describePostgres('the batch statement’s plan', (db) => {
  const update = (id: string, task: string | null): BatchedUpdate => ({
    id,
    owner: '',
    contextId: `c-${id}`,
    state: 'TASK_STATE_WORKING',
    statusKey: '2026-11-29T00:00:00.000Z',
    task,
    events: ['{"statusUpdate":{}}'],
    expectedVersion: 1,
  });

  for (const [leases, bounded] of [
    [false, false],
    [true, false],
    [true, true],
  ] as const) {
    it(`finds each updated row through the primary key, never by scanning a table (leases: ${leases}, retention bound: ${bounded})`, async () => {
      const S = quoteSchema(await db.schema());
      // A few thousand ended tasks: a table small enough that a scan looks cheap to the planner.
      await db.pool.query(
        `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task)
         SELECT 'done-' || g, '', 'c-' || g, 'TASK_STATE_COMPLETED', lpad(g::text, 12, '0'), 2, 3, '{"id":"done"}' FROM generate_series(1, 3000) g`,
      );
      await db.pool.query(`ANALYZE ${S}.tasks`);
      const client = await db.pool.connect();
      try {
        await client.query('SET plan_cache_mode = force_generic_plan');
        await client.query(`PREPARE batch AS ${batchStatement(S, bounded, leases)}`);
        const values = batchValues([update('a', '{"id":"a"}'), update('b', null)], bounded ? 100 : undefined, leases);
        // EXECUTE takes no bound parameters: its arguments go as literals.
        const literal = (value: unknown) => client.escapeLiteral(Array.isArray(value) ? `{${value.map((v) => (v === null ? 'NULL' : JSON.stringify(String(v)))).join(',')}}` : String(value));
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE batch(${values.map(literal).join(', ')})`);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        // Both updates (the one writing the task JSON and the one only appending) probe the primary key.
        expect(plan.match(/Index Scan using tasks_pkey on tasks/g)).toHaveLength(2);
        expect(plan).not.toMatch(/Seq Scan/);
      } finally {
        await client.query('DEALLOCATE ALL');
        client.release();
      }
    });
  }
});
