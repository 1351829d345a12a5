import { runTaskStoreConformance } from '@taskwire/core/testing';
import { describePostgres } from './database-test-kit.js';
import { createPostgresTaskStore } from './task-store.js';

describePostgres('PostgresTaskStore', (db) => {
  runTaskStoreConformance(
    'PostgreSQL',
    async () => {
      const schema = await db.schema();
      const open = () => createPostgresTaskStore({ pool: db.pool, schema });
      return { store: await open(), reopen: open, cleanup: () => db.drop(schema) };
    },
    { durable: true },
  );
});
