import {
  deadLetterFilter,
  DEFAULT_MAX_DEAD_LETTERS,
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
import { openPushSecrets, pushSecretBox, refuseUnsealedPushSecrets, type PushEncryptionOptions, type PushSecretBox } from '@taskwire/core/push';
import type pg from 'pg';
import type { PostgresCoordinator } from './cluster/coordinator.js';
import type { Connection, PostgresConnectionOptions } from './connection.js';
import { databaseError, lookupable, storable } from './database-errors.js';
import { openMigrated } from './migrate.js';
import { pushStatements } from './push-sql.js';
import { prepared } from './schema-name.js';

/** Options of {@link createPostgresPushConfigStore}. */
export interface PostgresPushConfigStoreOptions extends PostgresConnectionOptions {
  /** Dead letters kept, newest first (default 1,000). */
  readonly maxDeadLetters?: number;
  /**
   * Encrypts each config's secrets (`authentication`, `token`) at rest with
   * AES-256-GCM (see `PushEncryptionOptions` in `@taskwire/core/push`).
   * Without it they are stored as given.
   */
  readonly encryption?: PushEncryptionOptions;
  /**
   * The replica's coordinator (`createPostgresCoordinator`), with several
   * replicas: the renewals of delivery claims then run on its own
   * connections, one statement for every claim the replica holds, never
   * behind request traffic.
   */
  readonly coordinator?: Pick<PostgresCoordinator, 'backgroundQuery'>;
}

/** The step recorded (in `taskwire_contract_steps`) once a schema's push secrets were all sealed in the current format. */
export const SEALED_STEP = PUSH_SECRETS_SEALED;

interface ConfigRow {
  readonly owner: string;
  readonly delivered: string;
  readonly config: string;
}

/**
 * A {@link PushConfigStore} on PostgreSQL, beside a PostgresTaskStore in
 * the same schema: configs, delivery cursors and dead letters are rows,
 * every call one statement (a dead letter and its cursor move together).
 * Cursors only move forward, also when writers race. Values returned are
 * fresh copies. Several processes may share the tables.
 */
export class PostgresPushConfigStore implements PushConfigStore {
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly sql: ReturnType<typeof pushStatements>;

  private constructor(
    private readonly connection: Connection,
    private readonly box: PushSecretBox | undefined,
    maxDeadLetters: number,
    private readonly coordinator: PostgresPushConfigStoreOptions['coordinator'],
  ) {
    this.sql = pushStatements(connection.qualified, maxDeadLetters);
  }

  /** Opens the store: checks the encryption keys and that the schema is migrated (see {@link createPostgresPushConfigStore}). */
  static async open(options: PostgresPushConfigStoreOptions): Promise<PostgresPushConfigStore> {
    const max = options.maxDeadLetters ?? DEFAULT_MAX_DEAD_LETTERS;
    if (!(Number.isInteger(max) && max >= 0)) throw new RangeError(`maxDeadLetters must be an integer, 0 or more (got ${max})`);
    const box = pushSecretBox(options.encryption);
    const connection = await openMigrated(options, 'createPostgresPushConfigStore', 'opening the push config store');
    const store = new PostgresPushConfigStore(connection, box, max, options.coordinator);
    if (box) await store.resealLegacySecrets().catch(async (error: unknown) => (await store.close(), Promise.reject(error)));
    return store;
  }

  /**
   * The one-time sealing step of a schema, run when the store first opens
   * with `encryption`: seals, bound to their owner and URL, the secrets that
   * an earlier release sealed with task and config alone (see
   * `PushSecretBox.resealLegacy`) and those stored before encryption was
   * turned on; then records the step ({@link SEALED_STEP}). Once it is
   * recorded it never runs again, so a legacy or plaintext value that
   * appears later (written back from a backup, say) is never vouched for:
   * reading it fails and its delivery sends nothing. Each row is replaced
   * only if it is unchanged since it was read. Resolves how many rows it
   * sealed (0 once the step is recorded).
   */
  async resealLegacySecrets(): Promise<number> {
    const box = this.box;
    if (!box) return 0;
    type Row = ConfigRow & { task_id: string; config_id: string };
    return sealPushSecretsOnce<Row>(
      {
        recorded: async () => Boolean((await this.query(this.sql.stepRecorded, [SEALED_STEP], 'reading the push sealing step')).rowCount),
        read: async () =>
          (await this.query<Row>(this.sql.unsealed, [], 'reading push configs to seal')).rows.map((row) => ({
            row,
            entry: { owner: row.owner, delivered: 0, config: JSON.parse(row.config) as PushConfig },
          })),
        finish: async (sealed) => {
          let resealed = 0;
          for (const { row, entry } of sealed) {
            const values = [row.task_id, row.config_id, row.owner, row.config, JSON.stringify(entry.config)];
            resealed += (await this.query(this.sql.reseal, values, 'sealing a push config')).rowCount ?? 0;
          }
          await this.query(this.sql.recordStep, [SEALED_STEP], 'recording the push sealing step');
          return resealed;
        },
      },
      { seal: (entry) => box.seal(entry), resealLegacy: (entry) => box.resealLegacy(entry) },
    );
  }

  async put(entry: StoredPushConfig): Promise<StoredPushConfig> {
    const { config } = entry;
    const stored = this.box?.seal(entry) ?? entry;
    const values = [storable(config.taskId, 'taskId'), storable(config.id, 'push config id'), storable(entry.owner, 'tenant'), entry.delivered, JSON.stringify(stored.config)];
    const { rows } = await this.query<{ delivered: string }>(this.sql.put, values, 'storing a push config');
    return structuredClone({ ...entry, delivered: Number(rows[0]!.delivered) });
  }

  async get(taskId: string, configId: string): Promise<StoredPushConfig | undefined> {
    if (!lookupable(taskId) || !lookupable(configId)) return this.none();
    const { rows } = await this.query<ConfigRow>(this.sql.get, [taskId, configId], 'reading a push config');
    return rows[0] && this.entry(rows[0]);
  }

  async list(taskId: string): Promise<StoredPushConfig[]> {
    if (!lookupable(taskId)) return (await this.none()) ?? [];
    const { rows } = await this.query<ConfigRow>(this.sql.list, [taskId], 'reading push configs');
    return rows.map((row) => this.entry(row));
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    if (!lookupable(taskId) || !lookupable(configId)) return (await this.none()) ?? false;
    return ((await this.query(this.sql.delete, [taskId, configId], 'deleting a push config')).rowCount ?? 0) > 0;
  }

  async deleteTask(taskId: string): Promise<number> {
    if (!lookupable(taskId)) return (await this.none()) ?? 0;
    return (await this.query(this.sql.deleteTask, [taskId], 'deleting push configs')).rowCount ?? 0;
  }

  async all(): Promise<StoredPushConfig[]> {
    const { rows } = await this.query<ConfigRow>(this.sql.all, [], 'reading push configs');
    return rows.map((row) => this.entry(row));
  }

  /** The configs' keys, without opening their secrets (see `PushConfigStore.keys`). */
  async keys(taskId?: string): Promise<{ taskId: string; configId: string }[]> {
    if (taskId !== undefined && !lookupable(taskId)) return (await this.none()) ?? [];
    const [text, values] = taskId === undefined ? [this.sql.keys, []] : [this.sql.taskKeys, [taskId]];
    const { rows } = await this.query<{ task_id: string; config_id: string }>(text, values, 'reading push config keys');
    return rows.map((row) => ({ taskId: row.task_id, configId: row.config_id }));
  }

  async advance(taskId: string, configId: string, sequence: number): Promise<void> {
    if (!lookupable(taskId) || !lookupable(configId)) return this.none();
    await this.query(this.sql.advance, [taskId, configId, sequence], 'moving a push cursor');
  }

  /** Takes or renews the claim to deliver a config's events (replicas: one delivers it at a time; see `PushConfigStore.claim`). */
  async claim(taskId: string, configId: string, holder: string, ttlMs: number): Promise<boolean> {
    if (!lookupable(taskId) || !lookupable(configId)) return (await this.none()) ?? false;
    return ((await this.query(this.sql.claim, [taskId, configId, holder, ttlMs], 'claiming a push config')).rowCount ?? 0) > 0;
  }

  /**
   * Renews `holder`'s claims on `claims` in one statement (on the
   * coordinator's connections when the store has one); resolves those it
   * no longer holds (see `PushConfigStore.renewClaims`).
   */
  async renewClaims(holder: string, claims: readonly { readonly taskId: string; readonly configId: string }[], ttlMs: number): Promise<{ taskId: string; configId: string }[]> {
    this.check();
    const known = claims.filter((c) => lookupable(c.taskId) && lookupable(c.configId));
    const lost = claims.filter((c) => !known.includes(c)).map(({ taskId, configId }) => ({ taskId, configId }));
    const values = [holder, known.map((c) => c.taskId), known.map((c) => c.configId), ttlMs];
    const during = 'renewing push claims';
    const { rows } = this.coordinator
      ? await this.coordinator.backgroundQuery<{ task_id: string; config_id: string }>(this.sql.renewClaims, values).catch((error: unknown) => {
          throw databaseError(error, during);
        })
      : await this.query<{ task_id: string; config_id: string }>(this.sql.renewClaims, values, during);
    return [...lost, ...rows.map((row) => ({ taskId: row.task_id, configId: row.config_id }))];
  }

  /** Gives up `holder`'s claim on a config (hands it over when events are still owed; see `PushConfigStore.release`). */
  async release(taskId: string, configId: string, holder: string): Promise<void> {
    if (!lookupable(taskId) || !lookupable(configId)) return this.none();
    await this.query(this.sql.release, [taskId, configId, holder], 'releasing a push config');
  }

  /** The configs whose claim expired while held (a replica stopped mid-delivery), oldest first, at most 1,000. */
  async expiredClaims(): Promise<{ taskId: string; configId: string }[]> {
    const { rows } = await this.query<{ task_id: string; config_id: string }>(this.sql.expiredClaims, [], 'reading expired push claims');
    return rows.map((row) => ({ taskId: row.task_id, configId: row.config_id }));
  }

  async deadLetter(letter: PushDeadLetter): Promise<void> {
    const at = Date.parse(letter.at);
    const values = [
      storable(letter.taskId, 'taskId'),
      storable(letter.configId, 'push config id'),
      letter.throughSequence ?? letter.sequence,
      letter.sequence,
      new Date(Number.isNaN(at) ? Date.now() : at),
      JSON.stringify(letter),
    ];
    await this.query(this.sql.deadLetter, values, 'recording a dead letter');
  }

  async listDeadLetters(query: DeadLetterQuery = {}): Promise<PushDeadLetter[]> {
    const limit = query.limit === undefined ? null : Math.max(0, Math.trunc(query.limit));
    if (query.taskId !== undefined && !lookupable(query.taskId)) return (await this.none()) ?? [];
    const values = query.taskId === undefined ? [limit] : [limit, query.taskId];
    const { rows } = await this.query<{ letter: string }>(this.sql.letters(query.taskId !== undefined), values, 'reading dead letters');
    return rows.map((row) => JSON.parse(row.letter) as PushDeadLetter);
  }

  async removeDeadLetters(match: DeadLetterMatch): Promise<number> {
    this.check();
    deadLetterFilter(match); // a RangeError for a `before` that is not a date
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (column: string, value: unknown, op = '=') => {
      values.push(value);
      where.push(`${column} ${op} $${values.length}`);
    };
    if (match.taskId !== undefined) add('task_id', storable(match.taskId, 'taskId'));
    if (match.configId !== undefined) add('config_id', storable(match.configId, 'push config id'));
    if (match.sequence !== undefined) add('sequence', match.sequence);
    if (match.before !== undefined) add('given_up_at', new Date(Date.parse(match.before)), '<');
    const text = `DELETE FROM ${this.connection.qualified}.push_dead_letters${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
    return (await this.query(text, values, 'removing dead letters')).rowCount ?? 0;
  }

  /** Ends the pool if the store opened it. Idempotent. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.connection.owned ? this.connection.pool.end() : Promise.resolve();
    return this.closing;
  }

  private check(): void {
    if (this.closed) throw new PushStoreClosedError();
  }

  /** What a lookup of a key no row can have finds: nothing (after the closed check). */
  private async none(): Promise<undefined> {
    this.check();
    return undefined;
  }

  private entry(row: ConfigRow): StoredPushConfig {
    // With encryption, after the one-time step: a legacy-sealed or plaintext secret is one nobody sealed for this row.
    if (this.box) refuseUnsealedPushSecrets(JSON.parse(row.config) as PushConfig, "this schema's");
    const entry: StoredPushConfig = { owner: row.owner, delivered: Number(row.delivered), config: JSON.parse(row.config) as PushConfig };
    return openPushSecrets(entry, this.box);
  }

  private async query<R extends object>(text: string, values: unknown[], during: string): Promise<pg.QueryResult<R>> {
    this.check();
    try {
      return await this.connection.pool.query<R>(prepared(text, values));
    } catch (error) {
      throw databaseError(error, during, true);
    }
  }
}

/**
 * Opens a {@link PostgresPushConfigStore} on `pool` or `connectionString`,
 * in `schema` (default `taskwire`; the task store's schema). Rejects with
 * `SchemaNotReadyError` when the schema is not migrated, and with a
 * RangeError for a bad encryption key (never showing it).
 */
export function createPostgresPushConfigStore(options: PostgresPushConfigStoreOptions): Promise<PostgresPushConfigStore> {
  return PostgresPushConfigStore.open(options);
}
