import type { SqliteDriver, SqliteStatement } from './driver.js';

/** The states a finished task is in: its row never changes again. */
export const TERMINAL_STATES = "('TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')";
/** The states of a task an agent is (or was) running: what `unsettled()` returns. */
export const RUNNING_STATES = "('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')";

/** One schema step: its version and the statements that make it. */
export interface SqliteMigration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

/**
 * Every schema step, oldest first. A step only adds (expand); removing what
 * an earlier release still reads comes in a later step, once no process of
 * that release runs (contract). Table names start with `taskwire_`, so the
 * tables can share a database (a D1 database, an app's file) with others.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'tasks, events, counts, push configs and dead letters',
    statements: [
      `CREATE TABLE IF NOT EXISTS taskwire_tasks (
        id TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        context_id TEXT NOT NULL,
        state TEXT NOT NULL,
        status_key TEXT NOT NULL,
        version INTEGER NOT NULL,
        last_sequence INTEGER NOT NULL,
        snapshot_sequence INTEGER,
        task TEXT NOT NULL,
        trace TEXT,
        updated_at INTEGER NOT NULL
      )`,
      'CREATE INDEX IF NOT EXISTS taskwire_tasks_by_owner ON taskwire_tasks (owner, status_key, id)',
      'CREATE INDEX IF NOT EXISTS taskwire_tasks_by_context ON taskwire_tasks (owner, context_id, status_key, id)',
      'CREATE INDEX IF NOT EXISTS taskwire_tasks_by_state ON taskwire_tasks (owner, state, status_key, id)',
      `CREATE INDEX IF NOT EXISTS taskwire_tasks_running ON taskwire_tasks (id) WHERE state IN ${RUNNING_STATES}`,
      `CREATE TABLE IF NOT EXISTS taskwire_task_events (
        task_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (task_id, sequence)
      ) WITHOUT ROWID`,
      // Exact ListTasks totals without counting rows: per owner and state, kept by triggers in the same transaction.
      `CREATE TABLE IF NOT EXISTS taskwire_task_counts (
        owner TEXT NOT NULL,
        state TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (owner, state)
      ) WITHOUT ROWID`,
      `CREATE TRIGGER IF NOT EXISTS taskwire_tasks_counted_insert AFTER INSERT ON taskwire_tasks BEGIN
        INSERT INTO taskwire_task_counts (owner, state, n) VALUES (NEW.owner, NEW.state, 1)
          ON CONFLICT (owner, state) DO UPDATE SET n = n + 1;
      END`,
      `CREATE TRIGGER IF NOT EXISTS taskwire_tasks_counted_update AFTER UPDATE OF state ON taskwire_tasks WHEN OLD.state <> NEW.state BEGIN
        UPDATE taskwire_task_counts SET n = n - 1 WHERE owner = OLD.owner AND state = OLD.state;
        INSERT INTO taskwire_task_counts (owner, state, n) VALUES (NEW.owner, NEW.state, 1)
          ON CONFLICT (owner, state) DO UPDATE SET n = n + 1;
      END`,
      `CREATE TRIGGER IF NOT EXISTS taskwire_tasks_counted_delete AFTER DELETE ON taskwire_tasks BEGIN
        UPDATE taskwire_task_counts SET n = n - 1 WHERE owner = OLD.owner AND state = OLD.state;
      END`,
      `CREATE TABLE IF NOT EXISTS taskwire_push_configs (
        task_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        owner TEXT NOT NULL,
        delivered INTEGER NOT NULL,
        config TEXT NOT NULL,
        PRIMARY KEY (task_id, config_id)
      ) WITHOUT ROWID`,
      `CREATE TABLE IF NOT EXISTS taskwire_push_dead_letters (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id TEXT NOT NULL,
        config_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        given_up_at INTEGER NOT NULL,
        letter TEXT NOT NULL
      )`,
    ],
  },
];

/** The schema version this release reads and writes. */
export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS[SQLITE_MIGRATIONS.length - 1]!.version;

/** The schema was written by a newer release than this one: this release must not write to it. */
export class SqliteSchemaTooNewError extends Error {
  override readonly name = 'SqliteSchemaTooNewError';
  constructor(readonly found: number) {
    super(`The SQLite database has Taskwire schema version ${found}, newer than this release's ${SQLITE_SCHEMA_VERSION}: upgrade @taskwire/sqlite (a database is never moved back to an older schema)`);
  }
}

const META = 'CREATE TABLE IF NOT EXISTS taskwire_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)';
const READ_VERSION = "SELECT value FROM taskwire_meta WHERE key = 'schema_version'";

/**
 * Brings the database to this release's schema: applies the steps it lacks,
 * each in one transaction with the recorded version. Every statement of a
 * step is idempotent (`IF NOT EXISTS`), so two isolates or processes that
 * migrate at once both succeed.
 * Resolves the version found before. Rejects with
 * {@link SqliteSchemaTooNewError} when a newer release wrote the schema.
 */
export async function migrateSqlite(driver: SqliteDriver): Promise<number> {
  await driver.batch([{ sql: META, params: [] }]);
  const found = await schemaVersion(driver);
  if (found > SQLITE_SCHEMA_VERSION) throw new SqliteSchemaTooNewError(found);
  for (const migration of SQLITE_MIGRATIONS) {
    if (migration.version <= found) continue;
    const steps: SqliteStatement[] = migration.statements.map((sql) => ({ sql, params: [] }));
    steps.push({
      sql: "INSERT INTO taskwire_meta (key, value) VALUES ('schema_version', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      params: [String(migration.version)],
    });
    await driver.batch(steps);
  }
  return found;
}

/** The schema version recorded in the database (0 when none). */
export async function schemaVersion(driver: SqliteDriver): Promise<number> {
  const { rows } = await driver.query(READ_VERSION);
  return rows[0] === undefined ? 0 : Number(rows[0].value);
}
