import { runPushConfigStoreConformance, runPushEncryptionConformance } from '@taskwire/core/testing';
import { describePostgres } from './database-test-kit.js';
import { createPostgresPushConfigStore } from './push-store.js';
import { quoteSchema } from './schema-name.js';

describePostgres('PostgresPushConfigStore', (db) => {
  runPushConfigStoreConformance(
    'PostgreSQL',
    async () => {
      const schema = await db.schema();
      const open = () => createPostgresPushConfigStore({ pool: db.pool, schema });
      return { store: await open(), reopen: open, cleanup: () => db.drop(schema) };
    },
    { durable: true },
  );

  runPushEncryptionConformance('PostgreSQL', async () => {
    const schema = await db.schema();
    return {
      open: (encryption) => createPostgresPushConfigStore({ pool: db.pool, schema, encryption }),
      raw: async () => {
        const S = quoteSchema(schema);
        const { rows } = await db.pool.query(`SELECT (SELECT coalesce(string_agg(p::text, ' '), '') FROM ${S}.push_configs p) || (SELECT coalesce(string_agg(d::text, ' '), '') FROM ${S}.push_dead_letters d) AS raw`);
        return rows[0].raw as string;
      },
      cleanup: () => db.drop(schema),
    };
  });
});
