import { describe, expect, it } from 'vitest';
import { nodeSqlite } from '../src/node.js';

describe('group commit of the synchronous drivers', () => {
  it('commits the batches of one turn together, each in its own savepoint: a failing batch rolls back and rejects alone', async () => {
    const driver = nodeSqlite(':memory:');
    try {
      await driver.batch([{ sql: 'CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)', params: [] }]);
      const insert = (k: string, v: number) => ({ sql: 'INSERT INTO t (k, v) VALUES (?1, ?2)', params: [k, v] });
      const outcomes = await Promise.allSettled([
        driver.batch([insert('a', 1), insert('b', 2)]),
        // Its first statement takes effect inside the batch, then the duplicate key fails it: neither may stay.
        driver.batch([insert('c', 3), insert('a', 9)]),
        driver.batch([insert('d', 4)]),
        driver.batch([{ sql: 'SELECT k FROM t ORDER BY k', params: [] }]),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
      // The last batch of the group sees what the batches before it in the group kept.
      const [read] = (outcomes[3] as PromiseFulfilledResult<Awaited<ReturnType<typeof driver.batch>>>).value;
      expect(read!.rows.map((r) => r.k)).toEqual(['a', 'b', 'd']);
      expect((await driver.query('SELECT k, v FROM t ORDER BY k')).rows.map((r) => ({ ...r }))).toEqual([
        { k: 'a', v: 1 },
        { k: 'b', v: 2 },
        { k: 'd', v: 4 },
      ]);
    } finally {
      await driver.close();
    }
  });

  it('commits what is queued when the driver closes, and refuses batches after', async () => {
    const driver = nodeSqlite(':memory:');
    await driver.batch([{ sql: 'CREATE TABLE t (k TEXT)', params: [] }]);
    const pending = driver.batch([{ sql: "INSERT INTO t VALUES ('x')", params: [] }]);
    await driver.close();
    await expect(pending).resolves.toHaveLength(1);
    await expect(driver.batch([])).rejects.toThrow(/closed/);
  });
});
