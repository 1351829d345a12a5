import type { SqliteDriver, SqliteResult, SqliteRow, SqliteStatement, SqliteValue } from './driver.js';

/** A prepared statement of a synchronous SQLite binding (node:sqlite's `StatementSync`, bun:sqlite's `Statement`). */
export interface SyncPrepared {
  all(...params: SqliteValue[]): unknown[];
  run(...params: SqliteValue[]): { changes: number | bigint };
  /** bun:sqlite: releases the statement (its database closes only once none is left). */
  finalize?(): void;
}

/** What a synchronous binding gives a {@link SyncDriver}: prepare, exec, close. */
export interface SyncDatabase {
  prepare(sql: string): SyncPrepared;
  exec(sql: string): void;
  close(): void;
}

/** A statement reads rows when it is a query or has a RETURNING clause; otherwise it is run for its changes. */
const READS = /^\s*(SELECT|WITH|PRAGMA|VALUES)\b|\bRETURNING\b/i;

/** A batch waiting for its group's transaction. */
interface Queued {
  readonly statements: readonly SqliteStatement[];
  resolve(results: SqliteResult[]): void;
  reject(error: unknown): void;
}

/**
 * A {@link SqliteDriver} over a synchronous binding. Batches asked for in
 * one turn of the event loop are committed together (group commit): one
 * transaction, so one sync to the disk, with each batch in a savepoint of
 * its own, so a batch that fails rolls back alone and rejects alone; each
 * resolves once the group's transaction committed. Queries run at once
 * (they see every acknowledged batch). Statements are prepared once.
 */
export class SyncDriver implements SqliteDriver {
  private readonly cache = new Map<string, SyncPrepared>();
  private closed = false;
  private queue: Queued[] = [];

  constructor(
    readonly name: string,
    private readonly db: SyncDatabase,
  ) {}

  async batch(statements: readonly SqliteStatement[]): Promise<SqliteResult[]> {
    this.check();
    return new Promise((resolve, reject) => {
      this.queue.push({ statements, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  async query(sql: string, params: readonly SqliteValue[] = []): Promise<SqliteResult> {
    this.check();
    return this.run(sql, params);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    for (const prepared of this.cache.values()) prepared.finalize?.();
    this.cache.clear();
    this.db.close();
  }

  /** Commits the queued batches in one transaction, each in its own savepoint. */
  private flush(): void {
    const group = this.queue;
    if (group.length === 0) return;
    this.queue = [];
    const settled: (() => void)[] = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    for (const item of group) {
      this.db.exec('SAVEPOINT taskwire_batch');
      try {
        const results = item.statements.map((s) => this.run(s.sql, s.params));
        this.db.exec('RELEASE taskwire_batch');
        settled.push(() => item.resolve(results));
      } catch (error) {
        this.db.exec('ROLLBACK TO taskwire_batch');
        this.db.exec('RELEASE taskwire_batch');
        settled.push(() => item.reject(error));
      }
    }
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      for (const item of group) item.reject(error);
      return;
    }
    for (const settle of settled) settle();
  }

  private run(sql: string, params: readonly SqliteValue[]): SqliteResult {
    let prepared = this.cache.get(sql);
    if (prepared === undefined) this.cache.set(sql, (prepared = this.db.prepare(sql)));
    if (READS.test(sql)) {
      const rows = prepared.all(...params) as SqliteRow[];
      return { rows, changes: /^\s*(SELECT|WITH|PRAGMA|VALUES)\b/i.test(sql) ? 0 : rows.length };
    }
    return { rows: [], changes: Number(prepared.run(...params).changes) };
  }

  private check(): void {
    if (this.closed) throw new Error(`${this.name} is closed`);
  }
}
