import { expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { clusterStatements } from './cluster-sql.js';

/** A node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, as far as read here. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows': number;
  readonly 'Actual Loops': number;
  readonly Plans?: readonly PlanNode[];
}

function* nodes(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* nodes(child);
}

describePostgres('the take-over sweep reads only the rows of holders whose lease may have expired', (db: TestDatabase) => {
  it('2,000 running tasks of a replica that beats (among 50,000 tasks) are never read; the expired ones are taken (EXPLAIN: the holder index)', async () => {
    const schema = await db.schema('tw_sweep');
    const S = quoteSchema(schema);
    try {
      // A replica that beats holds 2,000 running tasks whose rows' own expiry passed long ago (renewals touch only the
      // heartbeat); one whose heartbeat expired holds 3; a holder with no heartbeat row (an older release) holds 2.
      const insert = (ids: string, holder: string, state = 'TASK_STATE_WORKING') =>
        db.pool.query(
          `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, lease_holder, lease_epoch, lease_expires_at)
           SELECT $1 || n, '', 'c', $3, 'k', 3, 3, '{}', $2, 1, now() - interval '1 minute' FROM generate_series(1, $4::int) n`,
          [ids, holder, state, Number(ids.split(':')[1])],
        );
      await insert('live-:2000', 'beating#1');
      await insert('done-:50000', 'beating#1', 'TASK_STATE_COMPLETED');
      await insert('dead-:3', 'stopped#2');
      await insert('older-:2', 'older#3');
      await db.pool.query(`INSERT INTO ${S}.lease_heartbeats (holder, expires_at) VALUES ('beating#1', now() + interval '1 minute'), ('stopped#2', now() - interval '1 minute')`);
      await db.pool.query(`ANALYZE ${S}.tasks`);

      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        const params = ['sweeper#9', 15_000, false, 100, [], null];
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${clusterStatements(S).takeOver}`, params);
        const plan = [...nodes(rows[0]!['QUERY PLAN'][0].Plan)];
        const taken = await client.query<{ id: string }>(`SELECT id FROM ${S}.tasks WHERE lease_holder = 'sweeper#9' ORDER BY id`);
        await client.query('ROLLBACK');

        expect(taken.rows.map((r) => r.id)).toEqual(['dead-:31', 'dead-:32', 'dead-:33', 'older-:21', 'older-:22']);
        expect(plan.some((n) => n['Index Name'] === 'tasks_running_by_holder')).toBe(true);
        // Rows of the tasks table read by its scans: the holders' probes and the expired rows, never the 2,000 live ones.
        const read = plan.filter((n) => n['Relation Name'] === 'tasks' && /Scan/.test(n['Node Type'])).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
        expect(read).toBeLessThan(50);
      } finally {
        client.release();
      }
    } finally {
      await db.drop(schema);
    }
  }, 60_000);
});
