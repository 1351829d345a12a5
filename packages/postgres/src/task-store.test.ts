import { runTaskStoreConformance } from '@taskwire/core/testing';
import { describePostgres } from './database-test-kit.js';
import { createPostgresTaskStore } from './task-store.js';

describePostgres('PostgresTaskStore', (db) => {
  /** A fresh schema per test, so tests run in parallel on one server; reopen opens a new store on the same schema. */
  const harness = async (maxEventsPerTask?: number) => {
    const schema = await db.schema();
    const open = () => createPostgresTaskStore({ pool: db.pool, schema, retention: { maxEventsPerTask } });
    return { store: await open(), reopen: open, cleanup: () => db.drop(schema) };
  };
  runTaskStoreConformance('PostgreSQL', () => harness(), { durable: true, retention: harness, keepsTrace: true, readsHead: true });
});
