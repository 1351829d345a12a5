import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect, it } from 'vitest';
import { cliCommand } from './cli-command.js';
import { describePostgres } from './database-test-kit.js';
import { migrate, migrationStatus, SchemaNotReadyError } from './migrate.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresPushConfigStore } from './push-store.js';
import { createPostgresTaskStore } from './task-store.js';

const fresh = (prefix = 'tw_migrate') => `${prefix}_${randomBytes(5).toString('hex')}`;

describePostgres('migrations', (db) => {
  it('lets several processes migrate one new schema at once: each step is applied exactly once', async () => {
    const schema = fresh();
    const pools = Array.from({ length: 6 }, () => new pg.Pool({ connectionString: db.url, max: 1 }));
    try {
      const results = await Promise.all(pools.map((pool) => migrate({ pool, schema })));
      expect(results.map((r) => r.version)).toEqual(Array(6).fill(SCHEMA_VERSION));
      expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
      expect(results.flatMap((r) => r.applied.map((m) => m.version))).toEqual(MIGRATIONS.map((m) => m.version));
      const { rows } = await db.pool.query(`SELECT version FROM ${quoteSchema(schema)}.taskwire_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await db.pool.query(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
    }
  });

  it('refuses to open a store on a schema that is not migrated, saying what to run; migrate then applies only what is missing and keeps the data', async () => {
    const schema = fresh();
    const S = quoteSchema(schema);
    const error = await createPostgresTaskStore({ pool: db.pool, schema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaNotReadyError);
    expect((error as Error).message).toMatch(new RegExp(`schema "${schema}" has no Taskwire tables yet.*needs version ${SCHEMA_VERSION}.*${cliCommand()} migrate --url .* --schema "${schema}"`));
    // A schema a release with only the first migration made, holding a task.
    await db.pool.query(`CREATE SCHEMA ${S}; CREATE TABLE ${S}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    await db.pool.query(MIGRATIONS[0]!.sql(S));
    await db.pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES (1, 'first')`);
    await db.pool.query(`INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task) VALUES ('kept', '', 'c', 'TASK_STATE_COMPLETED', '', 1, 0, '{"id":"kept","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"}}')`);
    await expect(createPostgresPushConfigStore({ pool: db.pool, schema })).rejects.toThrow(new RegExp(`is at version 1; this release of @taskwire/postgres needs version ${SCHEMA_VERSION}`));
    expect(await migrationStatus({ pool: db.pool, schema })).toEqual({ schema, version: 1, latest: SCHEMA_VERSION, pending: MIGRATIONS.slice(1).map(({ version, name }) => ({ version, name })) });
    const result = await migrate({ pool: db.pool, schema });
    expect(result).toMatchObject({ from: 1, version: SCHEMA_VERSION, applied: MIGRATIONS.slice(1).map(({ version }) => ({ version })), pending: [] });
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    expect((await store.get('kept'))?.task.id).toBe('kept');
    await store.close();
    expect((await migrate({ pool: db.pool, schema })).applied).toEqual([]);
    await db.pool.query(`DROP SCHEMA ${S} CASCADE`);
  });

  it('refuses a schema newer than this release knows', async () => {
    const schema = await db.schema();
    await db.pool.query(`INSERT INTO ${quoteSchema(schema)}.taskwire_migrations (version, name) VALUES (99, 'from the future')`);
    await expect(migrate({ pool: db.pool, schema })).rejects.toThrow(/version 99, newer than this release .* upgrade the package/);
  });

  it('takes any schema name, quoted', async () => {
    const schema = (`Task "wire" ${randomBytes(3).toString('hex')}; DROP`);
    await migrate({ pool: db.pool, schema });
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    await store.commit({ task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } }, expectedVersion: 0, owner: '', events: [] });
    expect((await store.list({ owner: '' })).totalSize).toBe(1);
    await store.close();
    await db.pool.query(`DROP SCHEMA ${quoteSchema(schema)} CASCADE`);
    expect(() => quoteSchema('')).toThrow(/non-empty/);
    expect(() => quoteSchema('a\0b')).toThrow(/NUL/);
    expect(() => quoteSchema('x'.repeat(64))).toThrow(/63 bytes/);
  });
});
