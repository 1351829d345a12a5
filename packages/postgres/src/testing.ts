/**
 * Test helpers for code on `@taskwire/postgres` (node + vitest only): a
 * suite that runs against a real PostgreSQL named by
 * `TASKWIRE_TEST_DATABASE_URL`, each in fresh schemas.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { migrate } from './migrate.js';
import { quoteSchema } from './schema-name.js';

/** The variable tests read the PostgreSQL URL from. */
export const DATABASE_URL_VARIABLE = 'TASKWIRE_TEST_DATABASE_URL';

/** Why a PostgreSQL test cannot run here, and how to make it run. */
export const MISSING_DATABASE =
  `${DATABASE_URL_VARIABLE} is not set, so there is no PostgreSQL to test against. Start a throwaway one with ` +
  `\`export ${DATABASE_URL_VARIABLE}="$(bash scripts/start-postgres.sh)"\` (stop it with \`bash scripts/stop-postgres.sh\`)`;

/** The test database: a shared pool, and fresh schemas (one per suite or test) dropped when the file ends. */
export class TestDatabase {
  readonly pool: pg.Pool;
  private readonly schemas = new Set<string>();

  constructor(readonly url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 6 });
  }

  /** Creates a new, migrated schema with a random name and returns its name. */
  async schema(prefix = 'tw_test'): Promise<string> {
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    this.schemas.add(name);
    await migrate({ pool: this.pool, schema: name });
    return name;
  }

  /** Drops a schema made by {@link schema}, with everything in it. */
  async drop(schema: string): Promise<void> {
    this.schemas.delete(schema);
    await this.pool.query(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
  }

  /** Drops every schema still there and ends the pool. */
  async close(): Promise<void> {
    for (const schema of [...this.schemas]) await this.drop(schema);
    await this.pool.end();
  }
}

/** A key whose task count disagrees with the rows: what the rows say, and what counts and deltas say. */
export interface TaskCountMismatch {
  readonly owner: string;
  readonly state: string;
  readonly rows: number;
  readonly counted: number;
}

/**
 * Compares a schema's task counts (counts plus deltas, per owner and
 * state) with its rows, in one statement (one snapshot: exact whatever
 * commits or compactions run meanwhile); resolves the keys that differ
 * (none when the counts are right).
 */
export async function taskCountMismatches(pool: pg.Pool, schema: string): Promise<TaskCountMismatch[]> {
  const S = quoteSchema(schema);
  const { rows } = await pool.query<{ owner: string; state: string; rows: string; counted: string }>(
    `SELECT owner, state, sum(r) AS rows, sum(c) AS counted FROM (
      SELECT owner, state, count(*) AS r, 0 AS c FROM ${S}.tasks GROUP BY owner, state
      UNION ALL SELECT owner, state, 0, n FROM ${S}.task_counts
      UNION ALL SELECT owner, state, 0, d FROM ${S}.task_count_deltas
    ) x GROUP BY owner, state HAVING sum(r) <> sum(c) ORDER BY owner, state`,
  );
  return rows.map((row) => ({ owner: row.owner, state: row.state, rows: Number(row.rows), counted: Number(row.counted) }));
}

/**
 * Registers a suite that needs PostgreSQL. With `TASKWIRE_TEST_DATABASE_URL`
 * set, `body` gets a {@link TestDatabase} (closed after the suite). Without
 * it, in CI (`CI=true`) the suite fails with a message saying what is
 * missing; on a developer's machine it is reported as not run, its name
 * carrying the reason and the command that starts a database.
 */
export function describePostgres(name: string, body: (db: TestDatabase) => void): void {
  const url = process.env[DATABASE_URL_VARIABLE];
  if (!url) {
    if (process.env.CI === 'true') {
      describe(name, () => {
        it('needs PostgreSQL', () => {
          throw new Error(`${MISSING_DATABASE}. In CI, .ci/run starts one before the tests.`);
        });
      });
    } else {
      describe.skip(`${name} — not run: ${MISSING_DATABASE}`, () => {
        it('needs PostgreSQL', () => undefined);
      });
    }
    return;
  }
  describe(name, () => {
    const db = new TestDatabase(url);
    afterAll(() => db.close());
    body(db);
  });
}
export { PGBOUNCER, PgBouncer } from './pooler-testing.js';
