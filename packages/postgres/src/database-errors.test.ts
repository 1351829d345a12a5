import { A2AError } from '@taskwire/core';
import type pg from 'pg';
import { expect, it } from 'vitest';
import { databaseError, isConflict } from './database-errors.js';
import { describePostgres, type TestDatabase } from './database-test-kit.js';

/** Runs `body` on two connections of their own, each in a transaction; resolves what each ended with (its error, or undefined). */
async function twoTransactions(db: TestDatabase, begin: string, body: (a: pg.PoolClient, b: pg.PoolClient) => Promise<void>[]): Promise<unknown[]> {
  const [a, b] = [await db.pool.connect(), await db.pool.connect()];
  try {
    await Promise.all([a.query(begin), b.query(begin)]);
    const outcomes = await Promise.allSettled(body(a, b));
    await Promise.all([a.query('ROLLBACK').catch(() => undefined), b.query('ROLLBACK').catch(() => undefined)]);
    return outcomes.map((o) => (o.status === 'rejected' ? o.reason : undefined));
  } finally {
    a.release();
    b.release();
  }
}

describePostgres('database errors: deadlocks and serialization failures are transient', (db: TestDatabase) => {
  const expectRetryable = (error: unknown) => {
    expect(isConflict(error)).toBe(true);
    const seen = databaseError(error, 'committing a task event', true);
    expect(A2AError.is(seen) && seen.kind).toBe('Internal');
    expect((seen as A2AError).metadata).toMatchObject({ retryable: 'true', cause: 'database-conflict' });
    // The database rolled it back: nothing is in doubt, whatever the caller feared.
    expect((seen as A2AError).message).toMatch(/Nothing was changed\. Retry the request shortly\./);
  };

  it('a deadlock (40P01) becomes a retryable error', async () => {
    const schema = await db.schema('tw_errors');
    const t = `"${schema}".rows`;
    await db.pool.query(`CREATE TABLE ${t} (id int PRIMARY KEY, n int); INSERT INTO ${t} VALUES (1, 0), (2, 0)`);
    const errors = await twoTransactions(db, 'BEGIN', (a, b) => [
      (async () => {
        await a.query(`UPDATE ${t} SET n = 1 WHERE id = 1`);
        await b.query(`UPDATE ${t} SET n = 1 WHERE id = 2`);
        await a.query(`UPDATE ${t} SET n = 2 WHERE id = 2`);
      })(),
      (async () => {
        // Waits until a blocks on b's row, then closes the cycle.
        const blocked = async () => (await db.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND pid = $1`, [(a as unknown as { processID: number }).processID])).rows[0].n > 0;
        while (!(await blocked())) await new Promise((r) => setTimeout(r, 10));
        await b.query(`UPDATE ${t} SET n = 2 WHERE id = 1`);
      })(),
    ]);
    const deadlocks = errors.filter((e) => (e as { code?: string } | undefined)?.code === '40P01');
    expect(deadlocks).toHaveLength(1);
    expectRetryable(deadlocks[0]);
    await db.drop(schema);
  });

  it('a serialization failure (40001) becomes a retryable error', async () => {
    const schema = await db.schema('tw_errors');
    const t = `"${schema}".rows`;
    await db.pool.query(`CREATE TABLE ${t} (id int PRIMARY KEY, n int)`);
    // Write skew: each reads what the other writes, then writes; the second to commit must fail.
    const errors = await twoTransactions(db, 'BEGIN ISOLATION LEVEL SERIALIZABLE', (a, b) => [
      (async () => {
        await a.query(`SELECT count(*) FROM ${t}`);
        await b.query(`SELECT count(*) FROM ${t}`);
        await a.query(`INSERT INTO ${t} VALUES (1, 0)`);
        await b.query(`INSERT INTO ${t} VALUES (2, 0)`);
        await a.query('COMMIT');
        await b.query('COMMIT');
      })(),
    ]);
    expect((errors[0] as { code?: string }).code).toBe('40001');
    expectRetryable(errors[0]);
    await db.drop(schema);
  });
});
