import { expect, it } from 'vitest';
import { describePostgres } from '../database-test-kit.js';
import { createPostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator } from './coordinator.js';
import { until } from './coordinator-test-kit.js';

describePostgres('connection names of a replica', (db) => {
  it('names the request pool, the cluster pool and the LISTEN connection with the replica id in pg_stat_activity, renaming connections opened before', async () => {
    const schema = await db.schema('tw_names');
    const store = await createPostgresTaskStore({ connectionString: db.url, schema, poolSize: 1 });
    try {
      // A connection the store opened before the coordinator existed: it carries the plain name until its next use.
      const { pid } = (await store.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!;
      const coordinator = await createPostgresCoordinator({ store, replicaName: 'named-replica', catchUpIntervalMs: 50 });
      try {
        const tag = coordinator.processId.split('#')[1]!;
        // A watched task is re-read on the cluster pool; a read of the store takes the request pool's connection again.
        const stop = coordinator.watch('none', () => undefined);
        await store.get('none');
        const names = async () =>
          (await db.pool.query<{ name: string }>(`SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE application_name LIKE $1 ORDER BY 1`, [`taskwire %${tag} named-replica`])).rows.map((r) => r.name);
        await until(async () => (await names()).length === 3, 'the three names');
        expect(await names()).toEqual([`taskwire ${tag} named-replica`, `taskwire cluster ${tag} named-replica`, `taskwire listener ${tag} named-replica`].sort());
        const renamed = await db.pool.query<{ name: string }>('SELECT application_name AS name FROM pg_stat_activity WHERE pid = $1', [pid]);
        expect(renamed.rows[0]?.name).toBe(`taskwire ${tag} named-replica`);
        stop();
      } finally {
        await coordinator.close();
      }
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });

  it('leaves the names of a pool the caller made as they are', async () => {
    const schema = await db.schema('tw_names');
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    /** The name a session of the caller's pool carries in pg_stat_activity, as the pool lends it. */
    const nameOfASession = async () => {
      const client = await db.pool.connect();
      try {
        return (await client.query<{ name: string }>('SELECT application_name AS name FROM pg_stat_activity WHERE pid = pg_backend_pid()')).rows[0]!.name;
      } finally {
        client.release();
      }
    };
    const before = await nameOfASession();
    const coordinator = await createPostgresCoordinator({ store });
    try {
      // After the coordinator started and the store read through the pool: no session carries the replica's
      // request-pool name, and a session lent now has the name it had before.
      await store.get('none');
      expect((await db.pool.query(`SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1`, [`taskwire ${coordinator.processId}%`])).rows).toEqual([]);
      expect(await nameOfASession()).toBe(before);
    } finally {
      await coordinator.close();
      await store.close();
      await db.drop(schema);
    }
  });
});
