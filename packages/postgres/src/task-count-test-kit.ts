import { randomBytes } from 'node:crypto';
import type { TestDatabase } from './database-test-kit.js';
import { MIGRATIONS } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { TASK_COUNT_MIGRATION } from './task-count-migration.js';

/** A task row as the previous release's SQL writes it (it knows nothing of the counts): `$1` id, `$2` owner, `$3` context, `$4` state. */
export const olderInsert = (S: string) =>
  `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task) VALUES ($1, $2, $3, $4, '', 1, 0, '{}')`;

/** A new schema migrated up to the step before the counts (what the previous release made); resolves its name. */
export async function schemaBeforeCounts(db: TestDatabase): Promise<string> {
  const schema = `tw_count_${randomBytes(5).toString('hex')}`;
  const S = quoteSchema(schema);
  await db.pool.query(`CREATE SCHEMA ${S}`);
  await db.pool.query(`CREATE TABLE ${S}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const step of MIGRATIONS.filter((m) => m.version < TASK_COUNT_MIGRATION.version)) {
    await db.pool.query(step.sql(S));
    await db.pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
  }
  return schema;
}
