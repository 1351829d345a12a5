import { runTaskStoreConformance } from '@taskwire/core/testing';
import type { Task } from '@taskwire/core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { createPostgresCoordinator } from './cluster/coordinator.js';
import { connect, UnnamedStatementClient } from './connection.js';
import { until } from './cluster/coordinator-test-kit.js';
import { describePostgres } from './database-test-kit.js';
import { migrate, migrationStatus } from './migrate.js';
import { PgBouncer } from './pooler-testing.js';
import { createPostgresTaskStore } from './task-store.js';

describePostgres('PostgresTaskStore through PgBouncer in transaction mode', (db) => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await PgBouncer.start(db.url);
  });
  afterAll(() => bouncer?.stop());

  /** A store whose statements go through the pooler; sessions (LISTEN, locks, migrations) go straight to the database. */
  const pooled = (schema: string, maxEventsPerTask?: number, poolSize?: number) =>
    createPostgresTaskStore({ connectionString: bouncer.url, directConnectionString: db.url, schema, ...(poolSize && { poolSize }), retention: { maxEventsPerTask } });
  const harness = async (maxEventsPerTask?: number) => {
    const schema = await db.schema('tw_pooled');
    const open = () => pooled(schema, maxEventsPerTask);
    return { store: await open(), reopen: open, cleanup: () => db.drop(schema) };
  };
  runTaskStoreConformance('PostgreSQL through PgBouncer', () => harness(), { durable: true, retention: harness, keepsTrace: true, readsHead: true });

  const task = (id: string, state: Task['status']['state'] = 'TASK_STATE_WORKING'): Task => ({ id, contextId: 'c', status: { state } });

  it('serves many concurrent calls from a pool larger than the server connections the pooler shares between them', async () => {
    const schema = await db.schema('tw_pooled');
    const store = await pooled(schema, undefined, 20);
    try {
      // Three server connections for twenty clients: each statement lands on whichever is free (a named statement would exist on some, not others).
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.commit({ task: task(`t${i}`), expectedVersion: 0, owner: 'o', events: [{ task: task(`t${i}`) }] })));
      const reads = await Promise.all(Array.from({ length: 300 }, (_, i) => store.get(`t${i % 60}`)));
      expect(reads.every((record) => record?.task.status.state === 'TASK_STATE_WORKING')).toBe(true);
      const page = await store.list({ owner: 'o', pageSize: 100 });
      expect(page.tasks).toHaveLength(60);
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });

  it('refuses an empty direct URL, and unnamed statements on a pool of yours that would still name them', async () => {
    expect(() => connect({ connectionString: bouncer.url, directConnectionString: '' }, 'test')).toThrow(/directConnectionString must be a non-empty connection URL/);
    expect(() => connect({ pool: db.pool, directConnectionString: db.url }, 'test')).toThrow(/Client: UnnamedStatementClient/);
    const pool = new pg.Pool({ connectionString: bouncer.url, Client: UnnamedStatementClient });
    try {
      const connection = connect({ pool, directConnectionString: db.url }, 'test');
      expect(connection.owned).toBe(false);
      // The same statement text under one name, from many clients sharing three server connections.
      const named = { name: 'taskwire_test_named', text: 'SELECT $1::int AS n' };
      const rows = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.query({ ...named, values: [i] })));
      expect(rows.map((r) => r.rows[0].n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    } finally {
      await pool.end();
    }
  });

  it('takes a pool whose client is a subclass of UnnamedStatementClient (one that counts its queries, say), and its statements stay unnamed', async () => {
    let queries = 0;
    class CountingClient extends UnnamedStatementClient {
      override query(...args: unknown[]): never {
        queries++;
        return (super.query as (...a: unknown[]) => never)(...args);
      }
    }
    const pool = new pg.Pool({ connectionString: bouncer.url, Client: CountingClient });
    try {
      expect(connect({ pool, directConnectionString: db.url }, 'test').owned).toBe(false);
      const named = { name: 'taskwire_test_counted', text: 'SELECT $1::int AS n' };
      const rows = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.query({ ...named, values: [i] })));
      expect(rows.map((r) => r.rows[0].n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(queries).toBeGreaterThanOrEqual(40);
    } finally {
      await pool.end();
    }
  });

  it('migrates on the direct connection when given the pooler and the direct URL', async () => {
    const schema = `tw_pooled_migrate_${process.pid}`;
    const options = { connectionString: bouncer.url, directConnectionString: db.url, schema };
    // The pooler refuses new connections to the database meanwhile: only the direct connection can run them.
    const database = new URL(db.url).pathname.slice(1);
    await bouncer.admin(`DISABLE ${database}`);
    try {
      const result = await migrate(options);
      expect(result.from).toBe(0);
      expect((await migrationStatus(options)).pending).toEqual([]);
      await bouncer.admin(`ENABLE ${database}`);
      const store = await createPostgresTaskStore(options);
      await store.close();
    } finally {
      await bouncer.admin(`ENABLE ${database}`);
      await db.drop(schema);
    }
  });

  it('the coordinator of a pooled store listens and takes its replica lock on the direct connection: a commit through the pooler wakes a watcher at once', async () => {
    const schema = await db.schema('tw_pooled');
    const store = await pooled(schema);
    // The catch-up is a minute away: only the notification can wake the watcher in time.
    const coordinator = await createPostgresCoordinator({ store, replicaName: 'pooled-replica', catchUpIntervalMs: 60_000 });
    try {
      await store.commit({ task: task('w'), expectedVersion: 0, owner: '', events: [{ task: task('w') }] });
      const heard: number[] = [];
      coordinator.watch('w', (sequence) => heard.push(sequence));
      await store.commit({ task: task('w', 'TASK_STATE_COMPLETED'), expectedVersion: 1, owner: '', events: [{ statusUpdate: { taskId: 'w', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } }] });
      await until(() => heard.includes(2), 'the wake-up of a commit made through the pooler', 20_000);
      // The replica name's advisory lock is held by a direct session (a pooled one would lose it with the transaction).
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND a.application_name = $1`,
        [`taskwire listener ${coordinator.processId.split('#')[1]} pooled-replica`],
      );
      expect(rows[0].n).toBe(1);
    } finally {
      await coordinator.close();
      await store.close();
      await db.drop(schema);
    }
  });
});
