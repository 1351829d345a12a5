import type { SqliteDriver, SqliteResult, SqliteRow, SqliteStatement, SqliteValue } from './driver.js';

/** A prepared statement of a synchronous SQLite binding (node:sqlite's `StatementSync`, bun:sqlite's `Statement`). */
export interface SyncPrepared {
  all(...params: SqliteValue[]): unknown[];
  run(...params: SqliteValue[]): { changes: number | bigint };
}

/** What a synchronous binding gives a {@link SyncDriver}: prepare, exec, close. */
export interface SyncDatabase {
  prepare(sql: string): SyncPrepared;
  exec(sql: string): void;
  close(): void;
}

/** A statement reads rows when it is a query or has a RETURNING clause; otherwise it is run for its changes. */
const READS = /^\s*(SELECT|WITH|PRAGMA|VALUES)\b|\bRETURNING\b/i;

/**
 * A {@link SqliteDriver} over a synchronous binding: every call runs to its
 * end on the calling turn of the event loop, so no two batches of one
 * process ever interleave. Statements are prepared once and cached.
 */
export class SyncDriver implements SqliteDriver {
  private readonly cache = new Map<string, SyncPrepared>();
  private closed = false;

  constructor(
    readonly name: string,
    private readonly db: SyncDatabase,
  ) {}

  async batch(statements: readonly SqliteStatement[]): Promise<SqliteResult[]> {
    this.check();
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const results = statements.map((s) => this.run(s.sql, s.params));
      this.db.exec('COMMIT');
      return results;
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  async query(sql: string, params: readonly SqliteValue[] = []): Promise<SqliteResult> {
    this.check();
    return this.run(sql, params);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.db.close();
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
