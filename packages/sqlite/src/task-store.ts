import {
  isTerminal,
  OwnerMismatchError,
  RemovalListeners,
  SnapshotLags,
  StoreClosedError,
  VersionConflictError,
  timestampSortKey,
  type CommitRequest,
  type CommitResult,
  type TaskListPage,
  type Logger,
  type SnapshotOptions,
  type StoredEvent,
  type TaskHead,
  type TaskQuery,
  type TaskRecord,
  type TaskState,
  type TaskStore,
} from '@taskwire/core';
import type { SqliteDriver, SqliteStatement } from './driver.js';
import { migrateSqlite } from './schema.js';
import { listResponse, listStatements, type ListRow } from './task-list.js';
import { taskOfRow } from './task-row.js';
import { TASK_SQL } from './task-sql.js';

/** Options of {@link createSqliteTaskStore}. */
export interface SqliteTaskStoreOptions {
  /** The database: `nodeSqlite(path)` (`@taskwire/sqlite/node`), `bunSqlite(path)` (`@taskwire/sqlite/bun`) or `d1Driver(env.DB)`. */
  readonly driver: SqliteDriver;
  /** Keep at most this many of each task's newest events (default: all, for the task's life). */
  readonly maxEventsPerTask?: number;
  /**
   * How far a streaming task's stored JSON may lag its event log (default
   * 100 events or 1 s): chunks are logged alone in between, so each costs
   * the same however long the task grew. Reads are exact regardless.
   */
  readonly snapshots?: SnapshotOptions;
  /** Apply the schema steps this release needs when opening (default true). */
  readonly migrate?: boolean;
  /** Where unreadable rows are reported. */
  readonly logger?: Logger;
  /** Closing the store closes the driver (default true). */
  readonly closeDriver?: boolean;
}

interface ProbeRow {
  readonly version: number;
  readonly owner: string;
  readonly state: TaskState;
  readonly last_sequence: number;
}

/**
 * A {@link TaskStore} in SQLite (see the package README). A commit is one
 * transaction of a few statements, whatever its number of events; a commit
 * that only appends (`CommitRequest.appendOnly`) logs its events without
 * rewriting the task's JSON, within the `snapshots` bounds, and reads
 * reduce the events after the stored JSON onto it. Reads return fresh
 * objects parsed from the stored JSON. One process owns a database file
 * (the file drivers lock it); on D1, the Worker's isolates share one.
 */
export class SqliteTaskStore implements TaskStore {
  private closed = false;
  private readonly removals = new RemovalListeners();
  private readonly lags: SnapshotLags;
  private readonly keep: number;

  private constructor(
    private readonly driver: SqliteDriver,
    private readonly options: SqliteTaskStoreOptions,
  ) {
    const max = options.maxEventsPerTask;
    if (max !== undefined && !(Number.isInteger(max) && max >= 1)) throw new RangeError(`maxEventsPerTask must be an integer, 1 or more (got ${max})`);
    this.keep = max ?? -1;
    this.lags = new SnapshotLags(options.snapshots, max);
  }

  /** Opens the store on `options.driver`, migrating the schema first unless `migrate: false`. */
  static async open(options: SqliteTaskStoreOptions): Promise<SqliteTaskStore> {
    const store = new SqliteTaskStore(options.driver, options);
    if (options.migrate !== false) await migrateSqlite(options.driver);
    return store;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.check();
    type Row = { owner: string; version: number; last_sequence: number; trace: string | null; task: string; pending: string | null };
    const row = (await this.driver.query(TASK_SQL.get, [taskId])).rows[0] as Row | undefined;
    if (row === undefined) return undefined;
    const record = { task: taskOfRow(row.task, row.pending, this.options.logger), version: Number(row.version), owner: row.owner, lastSequence: Number(row.last_sequence) };
    return row.trace === null ? record : { ...record, trace: row.trace };
  }

  /** The task's row without its JSON (no event read): see `TaskStore.head`. */
  async head(taskId: string): Promise<TaskHead | undefined> {
    this.check();
    const row = (await this.driver.query(TASK_SQL.head, [taskId])).rows[0] as { owner: string; version: number; last_sequence: number; state: TaskState } | undefined;
    return row && { taskId, version: Number(row.version), owner: row.owner, lastSequence: Number(row.last_sequence), state: row.state };
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    this.check();
    const { task, events } = request;
    const creating = request.expectedVersion === 0;
    const append = !creating && request.appendOnly === true && this.lags.mayAppend(task.id, request.expectedVersion, events.length);
    const key = timestampSortKey(task.status.timestamp);
    const json = append ? null : JSON.stringify(task);
    const now = Date.now();
    const row = creating
      ? { sql: TASK_SQL.create, params: [task.id, request.owner, task.contextId, task.status.state, key, json, events.length, request.trace ?? null, now] }
      : { sql: append ? TASK_SQL.append : TASK_SQL.update, params: [task.id, request.owner, task.contextId, task.status.state, key, json, events.length, now, request.expectedVersion] };
    const batch: SqliteStatement[] = [row, { sql: TASK_SQL.logEvents, params: [task.id, JSON.stringify(events.map((e) => JSON.stringify(e))), this.keep] }];
    if (this.keep >= 0 && !creating) batch.push({ sql: TASK_SQL.prune, params: [task.id, this.keep] });
    batch.push({ sql: TASK_SQL.probe, params: [task.id] });
    let results;
    try {
      results = await this.driver.batch(batch);
    } catch (error) {
      this.lags.forget(task.id);
      throw error;
    }
    const probe = results[results.length - 1]!.rows[0] as ProbeRow | undefined;
    // D1 counts the rows its triggers changed too: what matters is whether the row statement changed anything.
    if (results[0]!.changes === 0 || probe === undefined) {
      this.lags.forget(task.id);
      throw refusal(request, probe);
    }
    const version = Number(probe.version);
    const lastSequence = Number(probe.last_sequence);
    if (append) this.lags.appended(task.id, version, events.length);
    else this.lags.wrote(task.id, version, isTerminal(task.status.state));
    return { version, firstSequence: lastSequence - events.length + 1, lastSequence };
  }

  async list(query: TaskQuery): Promise<TaskListPage> {
    this.check();
    const statements = listStatements(query);
    const [total, page] = await this.driver.batch([statements.total, statements.page]);
    return listResponse(Number(total!.rows[0]?.total ?? 0), page!.rows as unknown as ListRow[], query, statements.pageSize, this.options.logger);
  }

  async delete(taskId: string): Promise<boolean> {
    this.check();
    const [removed] = await this.driver.batch([
      { sql: TASK_SQL.deleteTask, params: [taskId] },
      { sql: TASK_SQL.deleteEvents, params: [taskId] },
    ]);
    this.lags.forget(taskId);
    if (removed!.changes === 0) return false;
    this.removals.emit(taskId);
    return true;
  }

  async readEvents(taskId: string, afterSequence: number, limit = Infinity): Promise<StoredEvent[]> {
    this.check();
    if (limit <= 0) return [];
    const max = Number.isFinite(limit) ? Math.trunc(limit) : -1;
    const { rows } = await this.driver.query(TASK_SQL.readEvents, [taskId, afterSequence, max]);
    return rows.map((row) => ({ sequence: Number(row.sequence), event: JSON.parse(row.event as string) }));
  }

  async unsettled(): Promise<string[]> {
    this.check();
    return (await this.driver.query(TASK_SQL.unsettled)).rows.map((row) => row.id as string);
  }

  /** Resolves once the database answers (readiness checks). */
  async ping(): Promise<void> {
    this.check();
    await this.driver.query('SELECT 1');
  }

  /** Tells `listener` of each task this store deletes. */
  onRemoved(listener: (taskId: string) => void): () => void {
    return this.removals.add(listener);
  }

  /** Closes the driver unless `closeDriver: false`. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.options.closeDriver !== false) await this.driver.close();
  }

  private check(): void {
    if (this.closed) throw new StoreClosedError();
  }
}

/** Why a commit changed nothing, from its task's row read in the same transaction (`undefined`: no such row). */
function refusal(request: CommitRequest, row: ProbeRow | undefined): Error {
  const id = request.task.id;
  if (row === undefined) return new VersionConflictError(id, request.expectedVersion, 0);
  if (row.owner !== request.owner) return new OwnerMismatchError(id);
  const version = Number(row.version);
  if (version === request.expectedVersion && isTerminal(row.state)) {
    const error = new VersionConflictError(id, version, version);
    error.message = `Task ${id} is ${row.state}: a finished task never changes`;
    return error;
  }
  return new VersionConflictError(id, request.expectedVersion, version);
}

/** Opens a {@link SqliteTaskStore}: migrates the schema (unless `migrate: false`), then serves. */
export function createSqliteTaskStore(options: SqliteTaskStoreOptions): Promise<SqliteTaskStore> {
  return SqliteTaskStore.open(options);
}
