import { cliCommand } from './cli-command.js';
import { connect, type Connection, type PostgresConnectionOptions } from './connection.js';
import { databaseError } from './database-errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { backfillTaskCounts } from './task-counts.js';

/** Where a schema stands: its version, the version this release needs, and the migrations not applied yet. */
export interface MigrationStatus {
  readonly schema: string;
  /** 0 when the schema (or its migrations table) does not exist yet. */
  readonly version: number;
  /** The version this release of `@taskwire/postgres` works with. */
  readonly latest: number;
  readonly pending: readonly { readonly version: number; readonly name: string }[];
}

/** What {@link migrate} did. */
export interface MigrationResult extends MigrationStatus {
  /** The version before the call. */
  readonly from: number;
  /** The migrations this call applied (none when another process had already applied them). */
  readonly applied: readonly { readonly version: number; readonly name: string }[];
}

/** The schema's tables are missing or older than this release needs; the message says what to run, as it runs where the process is ({@link cliCommand}). */
export class SchemaNotReadyError extends Error {
  override readonly name = 'SchemaNotReadyError';
  constructor(readonly status: MigrationStatus, where: string) {
    const state = status.version === 0 ? `has no Taskwire tables yet` : `is at version ${status.version}`;
    super(
      `The PostgreSQL schema "${status.schema}" ${state}; this release of @taskwire/postgres needs version ${status.latest}. ` +
        `Apply the migrations first: ${cliCommand()} migrate --url ${where} --schema ${JSON.stringify(status.schema)} ` +
        `(or call migrate({ connectionString, schema }) from @taskwire/postgres, or start the reference agent with --migrate).`,
    );
  }
}

/** The advisory lock key of a schema's migrations: one migrator per schema at a time, on every client of the database. */
const LOCK_KEY = "hashtextextended('taskwire migrations ' || $1, 0)";

/** Migrations run on the direct URL when one is given (a pooler in front may not keep a session, and DDL is best sent straight). */
function direct(options: PostgresConnectionOptions): PostgresConnectionOptions {
  if (options.directConnectionString === undefined) return options;
  const { pool: _pool, directConnectionString, preparedStatements: _prepared, ...rest } = options;
  return { ...rest, connectionString: directConnectionString };
}

async function withConnection<T>(options: PostgresConnectionOptions, fn: (connection: Connection) => Promise<T>): Promise<T> {
  const connection = connect(direct(options), 'migrate');
  try {
    return await fn(connection);
  } catch (error) {
    throw databaseError(error, 'migrating the schema');
  } finally {
    if (connection.owned) await connection.pool.end();
  }
}

type Query = (text: string, values?: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** Reads the applied version (0 when the schema or the table is missing) with `query`. */
async function appliedVersion(query: Query, connection: Connection): Promise<number> {
  const exists = await query('SELECT to_regclass($1) IS NOT NULL AS present', [`${connection.qualified}.taskwire_migrations`]);
  if (!exists.rows[0]!.present) return 0;
  const { rows } = await query(`SELECT coalesce(max(version), 0)::int AS version FROM ${connection.qualified}.taskwire_migrations`);
  return rows[0]!.version as number;
}

function statusOf(schema: string, version: number): MigrationStatus {
  const pending = MIGRATIONS.filter((m) => m.version > version).map(({ version: v, name }) => ({ version: v, name }));
  return { schema, version, latest: SCHEMA_VERSION, pending };
}

/**
 * Brings the schema to this release's version: creates it when missing,
 * then applies every pending migration, in order, in one transaction (all
 * or nothing), recording each in `<schema>.taskwire_migrations`; then, in
 * a transaction of its own, completes the task counts of the rows stored
 * before their triggers (once; see `backfillTaskCounts`). Safe when
 * several processes call it at once: they take turns on an advisory lock
 * per schema, and the later ones find nothing left to do. Never drops data.
 * Rejects when the schema is newer than this release knows. With
 * `directConnectionString`, it connects there instead of `connectionString`
 * or `pool`.
 */
export function migrate(options: PostgresConnectionOptions): Promise<MigrationResult> {
  return withConnection(options, async (connection) => {
    const client = await connection.pool.connect();
    try {
      const query = (text: string, values?: unknown[]) => client.query(text, values);
      // Read committed whatever the server's default: a step's statements see what committed before its locks.
      await query('BEGIN ISOLATION LEVEL READ COMMITTED');
      let result: MigrationResult;
      try {
        await query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, [connection.schema]);
        // Nothing pending: no DDL at all, so a replica whose role may only read and write rows starts with --migrate.
        const from = (await appliedVersion(query, connection)) || (await createSchema(query, connection));
        if (from > SCHEMA_VERSION) {
          throw new Error(`The schema "${connection.schema}" is at version ${from}, newer than this release of @taskwire/postgres knows (${SCHEMA_VERSION}): upgrade the package`);
        }
        const applied = statusOf(connection.schema, from).pending;
        for (const step of MIGRATIONS.filter((m) => m.version > from)) {
          await query(step.sql(connection.qualified));
          await query(`INSERT INTO ${connection.qualified}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
        }
        await query('COMMIT');
        result = { ...statusOf(connection.schema, Math.max(from, SCHEMA_VERSION)), from, applied };
      } catch (error) {
        await query('ROLLBACK').catch(() => undefined);
        throw withoutPrivilege(error, connection.schema);
      }
      // After the steps committed (writers no longer wait on them): the task counts of the rows written before their triggers.
      await backfillTaskCounts(client, connection.qualified, connection.schema);
      return result;
    } finally {
      client.release();
    }
  });
}

/** Creates the schema when missing and its migrations table; resolves 0 (the version of a schema with no step applied). */
async function createSchema(query: Query, connection: Connection): Promise<number> {
  const found = await query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [connection.schema]);
  if (found.rows.length === 0) await query(`CREATE SCHEMA ${connection.qualified}`);
  await query(
    `CREATE TABLE IF NOT EXISTS ${connection.qualified}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  return 0;
}

/** A refusal for want of a privilege (42501), said as what to do: migrate as the schema's owner. Other errors as they are. */
function withoutPrivilege(error: unknown, schema: string): unknown {
  if ((error as { code?: unknown } | undefined)?.code !== '42501') return error;
  return new Error(
    `Migrating the schema "${schema}" needs its owner's privileges (creating tables, indexes, triggers), which this role lacks (${(error as Error).message}): ` +
      'run the migration as the owner (taskwire-postgres migrate), then start the replicas; as a role that only reads and writes rows they start when no step is pending',
    { cause: error },
  );
}

/** Reads where the schema stands (nothing is changed). */
export function migrationStatus(options: PostgresConnectionOptions): Promise<MigrationStatus> {
  return withConnection(options, async (connection) => statusOf(connection.schema, await schemaVersion(connection)));
}

/** The applied version of `connection`'s schema (0 when it has none). */
export function schemaVersion(connection: Connection): Promise<number> {
  return appliedVersion((text, values) => connection.pool.query(text, values), connection);
}

/**
 * Opens a store's connection (see `connect`) and checks its schema with
 * {@link requireSchema}; on failure ends a pool it opened and rejects
 * (unreachable database: the retryable error, saying it was `during`).
 */
export async function openMigrated(options: PostgresConnectionOptions, owner: string, during: string): Promise<Connection> {
  const connection = connect(options, owner);
  try {
    await requireSchema(connection);
    return connection;
  } catch (error) {
    if (connection.owned) await connection.pool.end();
    throw databaseError(error, during);
  }
}

/**
 * Checks at a store's open that the schema is at (or past) this release's
 * version; rejects with {@link SchemaNotReadyError}, which says what to run,
 * when it is not.
 */
export async function requireSchema(connection: Connection): Promise<void> {
  const version = await schemaVersion(connection);
  if (version < SCHEMA_VERSION) throw new SchemaNotReadyError(statusOf(connection.schema, version), connection.where);
}
