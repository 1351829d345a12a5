import {
  deadLetterFilter,
  DEFAULT_MAX_DEAD_LETTERS,
  hasPlainSecrets as plain,
  PUSH_SECRETS_SEALED,
  PushStoreClosedError,
  sealPushSecretsOnce,
  type DeadLetterMatch,
  type DeadLetterQuery,
  type PushConfig,
  type PushConfigStore,
  type PushDeadLetter,
  type StoredPushConfig,
} from '@taskwire/core';
import type { SqliteDriver, SqliteRow, SqliteStatement, SqliteValue } from './driver.js';
import { PUSH_SQL } from './push-sql.js';
import { migrateSqlite } from './schema.js';

/** The mark recorded (in `taskwire_meta`) once every stored push secret of the database was sealed. */
export { PUSH_SECRETS_SEALED };

/**
 * Seals push config secrets at rest and opens them again: a `PushSecretBox`
 * (`pushSecretBox({ keys, current })` from `@taskwire/core/push`) is one.
 */
export interface PushSecretSealer {
  seal(entry: StoredPushConfig): StoredPushConfig;
  open(entry: StoredPushConfig): StoredPushConfig;
}

/** Options of {@link createSqlitePushConfigStore}. */
export interface SqlitePushConfigStoreOptions {
  /** The task store's database (the same driver, or one on the same file or D1 binding). */
  readonly driver: SqliteDriver;
  /** Dead letters kept, newest first (default 1,000). */
  readonly maxDeadLetters?: number;
  /** Encrypts each config's secrets (`authentication`, `token`) at rest; without it they are stored as given. */
  readonly encryption?: PushSecretSealer;
  /** Apply the schema steps this release needs when opening (default true). */
  readonly migrate?: boolean;
  /** Closing the store closes the driver (default false: the task store usually owns it). */
  readonly closeDriver?: boolean;
}

/**
 * A {@link PushConfigStore} in SQLite, beside a SqliteTaskStore on the same
 * database: configs, delivery cursors and dead letters are rows; a dead
 * letter and its config's cursor move in one transaction; cursors only
 * move forward. Values returned are fresh copies. It serves one process
 * (no delivery claims: `@taskwire/postgres` has those, for replicas).
 */
export class SqlitePushConfigStore implements PushConfigStore {
  private closed = false;
  private readonly max: number;

  private constructor(private readonly options: SqlitePushConfigStoreOptions) {
    const max = options.maxDeadLetters ?? DEFAULT_MAX_DEAD_LETTERS;
    if (!(Number.isInteger(max) && max >= 0)) throw new RangeError(`maxDeadLetters must be an integer, 0 or more (got ${max})`);
    this.max = max;
  }

  /** Opens the store, migrating the schema first unless `migrate: false`. */
  static async open(options: SqlitePushConfigStoreOptions): Promise<SqlitePushConfigStore> {
    const store = new SqlitePushConfigStore(options);
    if (options.migrate !== false) await migrateSqlite(options.driver);
    if (options.encryption) await store.sealOnce(options.encryption);
    return store;
  }

  /**
   * The database's one-time sealing step, the first time a store opens with
   * `encryption`: seals the secrets stored in the clear before encryption
   * was turned on, then records {@link PUSH_SECRETS_SEALED}. After it, a
   * secret in the clear (written back from a backup, or by a process
   * without the option) is never vouched for: reading it fails and its
   * delivery sends nothing.
   */
  private async sealOnce(sealer: PushSecretSealer): Promise<void> {
    await sealPushSecretsOnce<SqliteRow>(
      {
        recorded: async () => (await this.query('SELECT 1 FROM taskwire_meta WHERE key = ?1', [PUSH_SECRETS_SEALED])).rows.length > 0,
        read: async () =>
          (await this.query('SELECT owner, delivered, config FROM taskwire_push_configs')).rows.map((row) => ({
            row,
            entry: { owner: row.owner as string, delivered: 0, config: JSON.parse(row.config as string) as PushConfig },
          })),
        finish: async (sealed) => {
          const batch: SqliteStatement[] = sealed.map(({ row, entry }) => ({
            sql: 'UPDATE taskwire_push_configs SET config = ?3 WHERE task_id = ?1 AND config_id = ?2 AND config = ?4',
            params: [entry.config.taskId, entry.config.id, JSON.stringify(entry.config), row.config as string],
          }));
          batch.push({ sql: "INSERT INTO taskwire_meta (key, value) VALUES (?1, 'yes') ON CONFLICT (key) DO NOTHING", params: [PUSH_SECRETS_SEALED] });
          const results = await this.options.driver.batch(batch);
          return results.slice(0, sealed.length).reduce((sum, result) => sum + result.changes, 0);
        },
      },
      // Secrets in the clear only: a sealer that also reads a legacy format (a PushSecretBox) is not asked to reseal here.
      { seal: (entry) => sealer.seal(entry) },
    );
  }

  async put(entry: StoredPushConfig): Promise<StoredPushConfig> {
    const stored = this.options.encryption?.seal(entry) ?? entry;
    const { rows } = await this.query(PUSH_SQL.put, [entry.config.taskId, entry.config.id, entry.owner, entry.delivered, JSON.stringify(stored.config)]);
    return structuredClone({ ...entry, delivered: Number(rows[0]!.delivered) });
  }

  async get(taskId: string, configId: string): Promise<StoredPushConfig | undefined> {
    const row = (await this.query(PUSH_SQL.get, [taskId, configId])).rows[0];
    return row && this.entry(row);
  }

  async list(taskId: string): Promise<StoredPushConfig[]> {
    return (await this.query(PUSH_SQL.list, [taskId])).rows.map((row) => this.entry(row));
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    return (await this.query(PUSH_SQL.delete, [taskId, configId])).changes > 0;
  }

  async deleteTask(taskId: string): Promise<number> {
    return (await this.query(PUSH_SQL.deleteTask, [taskId])).changes;
  }

  async all(): Promise<StoredPushConfig[]> {
    return (await this.query(PUSH_SQL.all)).rows.map((row) => this.entry(row));
  }

  /** The configs' keys, without opening their secrets (see `PushConfigStore.keys`). */
  async keys(taskId?: string): Promise<{ taskId: string; configId: string }[]> {
    const { rows } = taskId === undefined ? await this.query(PUSH_SQL.keys) : await this.query(PUSH_SQL.taskKeys, [taskId]);
    return rows.map((row) => ({ taskId: row.task_id as string, configId: row.config_id as string }));
  }

  async advance(taskId: string, configId: string, sequence: number): Promise<void> {
    await this.query(PUSH_SQL.advance, [taskId, configId, sequence]);
  }

  async deadLetter(letter: PushDeadLetter): Promise<void> {
    this.check();
    const at = Date.parse(letter.at);
    const batch: SqliteStatement[] = [{ sql: PUSH_SQL.advance, params: [letter.taskId, letter.configId, letter.throughSequence ?? letter.sequence] }];
    if (this.max > 0) {
      batch.push({ sql: PUSH_SQL.letter, params: [letter.taskId, letter.configId, letter.sequence, Number.isNaN(at) ? Date.now() : at, JSON.stringify(letter)] });
      batch.push({ sql: PUSH_SQL.trimLetters, params: [this.max] });
    }
    await this.options.driver.batch(batch);
  }

  async listDeadLetters(query: DeadLetterQuery = {}): Promise<PushDeadLetter[]> {
    const limit = query.limit === undefined ? -1 : Math.max(0, Math.trunc(query.limit));
    const params: SqliteValue[] = query.taskId === undefined ? [limit] : [limit, query.taskId];
    const { rows } = await this.query(PUSH_SQL.letters(query.taskId !== undefined), params);
    return rows.map((row) => JSON.parse(row.letter as string) as PushDeadLetter);
  }

  async removeDeadLetters(match: DeadLetterMatch): Promise<number> {
    this.check();
    deadLetterFilter(match); // a RangeError for a `before` that is not a date
    const where: string[] = [];
    const params: SqliteValue[] = [];
    const add = (column: string, value: SqliteValue, op = '=') => {
      params.push(value);
      where.push(`${column} ${op} ?${params.length}`);
    };
    if (match.taskId !== undefined) add('task_id', match.taskId);
    if (match.configId !== undefined) add('config_id', match.configId);
    if (match.sequence !== undefined) add('sequence', match.sequence);
    if (match.before !== undefined) add('given_up_at', Date.parse(match.before), '<');
    return (await this.query(`DELETE FROM taskwire_push_dead_letters${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params)).changes;
  }

  /** Closes the driver only with `closeDriver: true`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.options.closeDriver === true) await this.options.driver.close();
  }

  private check(): void {
    if (this.closed) throw new PushStoreClosedError();
  }

  private entry(row: SqliteRow): StoredPushConfig {
    const entry: StoredPushConfig = { owner: row.owner as string, delivered: Number(row.delivered), config: JSON.parse(row.config as string) as PushConfig };
    if (this.options.encryption && plain(entry.config)) {
      throw new Error(`the push config ${entry.config.id} of task ${entry.config.taskId} has secrets stored without encryption, written after this database's one-time sealing step (from a backup?): nothing is sent; set the config again to repair it`);
    }
    if (this.options.encryption && String((entry.config as { sealed?: unknown }).sealed).startsWith('tw1:')) {
      // An earlier release's format (not bound to URL and owner): this store never reseals it, so it is refused, not opened.
      throw new Error(`the push config ${entry.config.id} of task ${entry.config.taskId} has secrets sealed by an earlier release, not bound to its URL and owner (from a backup?): nothing is sent; set the config again to repair it`);
    }
    if (this.options.encryption) return this.options.encryption.open(entry);
    if ((entry.config as { sealed?: unknown }).sealed !== undefined) {
      throw new Error(`the push config ${entry.config.id} of task ${entry.config.taskId} has encrypted secrets: open the store with its encryption option`);
    }
    return entry;
  }

  private query(sql: string, params: readonly SqliteValue[] = []) {
    this.check();
    return this.options.driver.query(sql, params);
  }
}

/** Opens a {@link SqlitePushConfigStore} (migrating the schema unless `migrate: false`). */
export function createSqlitePushConfigStore(options: SqlitePushConfigStoreOptions): Promise<SqlitePushConfigStore> {
  return SqlitePushConfigStore.open(options);
}
