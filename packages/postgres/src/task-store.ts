import {
  RemovalListeners,
  StoreClosedError,
  type CommitRequest,
  type CommitResult,
  type TaskListPage,
  type Logger,
  type StoredEvent,
  type TaskHead,
  type TaskQuery,
  type TaskRecord,
  type TaskState,
  type TaskStore,
} from '@taskwire/core';
import type pg from 'pg';
import { refusalOf, type ProbedRow } from './commit-refusal.js';
import { eventsChannel } from './cluster/names.js';
import { CommitNotifier } from './cluster/notifier.js';
import type { Connection } from './connection.js';
import { CONTRACT_REFRESH_MS, ContractSteps } from './contract-steps.js';
import { databaseError, lookupable } from './database-errors.js';
import { openMigrated } from './migrate.js';
import { EventRetention, resolveRetention } from './retention.js';
import { timerInterval } from './timer-interval.js';
import { prepared } from './schema-name.js';
import { SNAPSHOT_LOGS_STEP } from './snapshot-guard-migration.js';
import { TaskCommits } from './task-commits.js';
import { countCompactionInterval, TaskCounts } from './task-counts.js';
import { listResponse, listStatement, type ListRow } from './task-list.js';
import { taskOfRow } from './task-row.js';
import { taskStatements, type TaskStatements } from './task-sql.js';
import type { PostgresTaskStoreOptions } from './task-store-options.js';

export type { PostgresTaskStoreOptions } from './task-store-options.js';

/**
 * A {@link TaskStore} on PostgreSQL (see the package README). Every call is
 * one statement, except `delete` (a short transaction); a commit is one
 * round trip. A commit that only appends (`CommitRequest.appendOnly`: an
 * artifact chunk, a status update in the same state) logs its events
 * without rewriting the task's JSON, within the bounds of
 * {@link PostgresTaskStoreOptions.snapshots}; reads reduce the events
 * logged after the stored JSON onto it, so they see every commit. Reads return fresh objects parsed from the stored JSON
 * (copies: changing them changes nothing stored). Several processes may
 * share the tables: nothing read is cached between calls (the store only
 * remembers the versions it wrote, to know how far each snapshot lags). Database outages
 * reject with a retryable `Internal` A2AError; ids and owners PostgreSQL
 * cannot store (NUL characters) reject with `InvalidParams` before any SQL.
 */
export class PostgresTaskStore implements TaskStore {
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly removals = new RemovalListeners();
  private sql: TaskStatements;
  private readonly maxEvents: number | undefined;
  /** Set once replicas share the tables: what announces every commit to them. */
  private notifier: CommitNotifier | undefined;

  private readonly commits: TaskCommits;
  private readonly counts: TaskCounts;
  private readonly logger: Logger | undefined;

  private constructor(
    private readonly connection: Connection,
    private readonly retention: EventRetention,
    private readonly steps: ContractSteps,
    options: PostgresTaskStoreOptions,
  ) {
    this.logger = options.logger;
    this.maxEvents = retention.maxEventsPerTask;
    this.sql = taskStatements(connection.qualified, this.maxEvents);
    this.counts = new TaskCounts(connection, options.logger, countCompactionInterval(options));
    this.commits = new TaskCommits(
      {
        query: (text, values, during, outcomeUnknown) => this.query(text, values, during, outcomeUnknown),
        refusal: (request) => this.refusal(request),
        statements: () => this.sql,
        notifier: () => this.notifier,
        snapshotLogs: () => this.steps.has(SNAPSHOT_LOGS_STEP),
      },
      connection.qualified,
      this.maxEvents,
      options,
    );
  }

  /** Opens the store: checks the schema is migrated (see {@link createPostgresTaskStore}). */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    const retention = resolveRetention(options.retention);
    countCompactionInterval(options);
    const refreshMs = timerInterval(options.contractRefreshMs, CONTRACT_REFRESH_MS, 'contractRefreshMs');
    const connection = await openMigrated(options, 'createPostgresTaskStore', 'opening the task store');
    let steps: ContractSteps;
    try {
      steps = await ContractSteps.open(connection, options.logger, refreshMs);
    } catch (error) {
      if (connection.owned) await connection.pool.end();
      throw error;
    }
    const store = new PostgresTaskStore(connection, new EventRetention(connection, retention, options.logger), steps, options);
    try {
      await store.counts.start();
    } catch (error) {
      await store.close();
      throw error;
    }
    store.retention.start();
    return store;
  }

  /** The schema the tables are in. */
  get schema(): string {
    return this.connection.schema;
  }

  /**
   * Makes every later commit keep its task's lease (see `CommitRequest.lease`)
   * and, once it resolved, announce itself on the schema's commit channel
   * (LISTEN/NOTIFY: only the task id and its last sequence; see
   * `CommitNotifier`): what several replicas on these tables need.
   * `createPostgresCoordinator({ store })` calls it.
   */
  shareCommits(logger?: Logger): void {
    if (this.notifier !== undefined) return;
    this.notifier = new CommitNotifier(this.connection.pool, eventsChannel(this.connection.schema), logger);
    this.sql = taskStatements(this.connection.qualified, this.maxEvents, true);
  }

  /** True once contract step `step` is recorded in the store's schema, as this process last read the steps (see `CONTRACT_STEPS`). */
  hasContractStep(step: string): boolean {
    return this.steps.has(step);
  }

  /** The pool the store queries (yours, or the one it opened). */
  get pool(): pg.Pool {
    return this.connection.pool;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.check();
    if (!lookupable(taskId)) return undefined;
    type Row = { owner: string; version: number; last_sequence: string; trace: string | null; task: string; pending: string[] | null };
    const { rows } = await this.query<Row>(this.sql.get, [taskId], 'reading a task');
    const row = rows[0];
    if (row === undefined) return undefined;
    const record = { task: taskOfRow(row.task, row.pending, this.logger), version: row.version, owner: row.owner, lastSequence: Number(row.last_sequence) };
    return row.trace === null ? record : { ...record, trace: row.trace };
  }

  /** The task's row without its JSON (one index lookup; no event read): see `TaskStore.head`. */
  async head(taskId: string): Promise<TaskHead | undefined> {
    this.check();
    if (!lookupable(taskId)) return undefined;
    const { rows } = await this.query<{ owner: string; version: number; last_sequence: string; state: TaskState }>(this.sql.head, [taskId], 'reading a task');
    const row = rows[0];
    return row === undefined ? undefined : { taskId, version: row.version, owner: row.owner, lastSequence: Number(row.last_sequence), state: row.state };
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    this.check();
    return this.commits.commit(request);
  }

  /** See `TaskStore.commitFrom`: an update whose events are numbered from `firstSequence`, leaving a gap. */
  async commitFrom(request: CommitRequest, firstSequence: number): Promise<CommitResult> {
    this.check();
    return this.commits.commitFrom(request, firstSequence);
  }

  async list(query: TaskQuery): Promise<TaskListPage> {
    this.check();
    const statement = listStatement(this.connection.qualified, query, this.counts.ready);
    const { rows } = await this.query<ListRow>(statement.text, statement.values, 'listing tasks');
    return listResponse(rows, query, statement.pageSize, this.logger);
  }

  async delete(taskId: string): Promise<boolean> {
    this.check();
    if (!lookupable(taskId)) return false;
    // Two statements in one transaction: the row delete waits for a commit in flight, and the events delete
    // (a new snapshot) then sees every event it wrote. A create of the same id waits for this to end.
    let client: pg.PoolClient | undefined;
    try {
      client = await this.connection.pool.connect();
      await client.query('BEGIN');
      const removed = await client.query(prepared(this.sql.deleteTask, [taskId]));
      await client.query(prepared(this.sql.deleteEvents, [taskId]));
      await client.query('COMMIT');
      client.release();
      client = undefined;
      this.commits.forget(taskId);
      if (removed.rowCount === 0) return false;
      this.removals.emit(taskId);
      return true;
    } catch (error) {
      client?.release(true);
      throw databaseError(error, 'deleting a task', true);
    }
  }

  async readEvents(taskId: string, afterSequence: number, limit = Infinity): Promise<StoredEvent[]> {
    this.check();
    if (limit <= 0 || !lookupable(taskId)) return [];
    const max = Number.isFinite(limit) ? Math.trunc(limit) : null;
    const { rows } = await this.query<{ sequence: string; event: string }>(this.sql.readEvents, [taskId, afterSequence, max], 'reading task events');
    return rows.map((row) => ({ sequence: Number(row.sequence), event: JSON.parse(row.event) }));
  }

  async unsettled(): Promise<string[]> {
    this.check();
    const { rows } = await this.query<{ id: string }>(this.sql.unsettled, [], 'reading running tasks');
    return rows.map((row) => row.id);
  }

  /** Resolves once the database answers (for readiness checks); rejects with the retryable error otherwise. */
  async ping(): Promise<void> {
    this.check();
    await this.query(this.sql.ping, [], 'checking the database');
  }

  /** Tells `listener` of each task this store instance deletes (deletes by other processes are not seen). */
  onRemoved(listener: (taskId: string) => void): () => void {
    return this.removals.add(listener);
  }

  /** Drops the events past the age bound now (the store also does it periodically); resolves how many went. */
  pruneEvents(): Promise<number> {
    this.check();
    return this.retention.sweep();
  }

  /**
   * Folds the task count deltas into the counts now (stores also do it every
   * `countCompactionIntervalMs`; one process at a time, the others skip);
   * resolves how many deltas went.
   */
  compactCounts(): Promise<number> {
    this.check();
    return this.counts.compact();
  }

  /** Stops the retention sweeps and count compactions and ends the pool if the store opened it. Idempotent. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      this.steps.stop();
      await this.counts.stop();
      await this.retention.stop();
      await this.notifier?.idle();
      if (this.connection.owned) await this.connection.pool.end();
    })();
    return this.closing;
  }

  private check(): void {
    if (this.closed) throw new StoreClosedError();
  }

  private async query<R extends object>(text: string, values: unknown[], during: string, outcomeUnknown = false): Promise<pg.QueryResult<R>> {
    try {
      return await this.connection.pool.query<R>(prepared(text, values));
    } catch (error) {
      throw databaseError(error, during, outcomeUnknown);
    }
  }

  /** Why a commit changed nothing, read after the fact. */
  private async refusal(request: CommitRequest): Promise<Error> {
    const { rows } = await this.query<ProbedRow>(this.sql.probe, [request.task.id], 'storing a task');
    return refusalOf(request, rows[0]);
  }
}

/**
 * Opens a {@link PostgresTaskStore} on `pool` or `connectionString`, in
 * `schema` (default `taskwire`). Rejects with `SchemaNotReadyError` (saying
 * what to run) when the schema is not migrated to this release's version:
 * run `taskwire-postgres migrate` or {@link migrate} first.
 */
export function createPostgresTaskStore(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
  return PostgresTaskStore.open(options);
}
