/** A value SQLite binds or returns: text, a number, a bigint, null, or bytes. */
export type SqliteValue = string | number | bigint | null | Uint8Array;

/** One row a statement returned, by column name. */
export type SqliteRow = Readonly<Record<string, SqliteValue>>;

/** One statement with its parameters, bound in order to `?1`, `?2`, ... */
export interface SqliteStatement {
  readonly sql: string;
  readonly params: readonly SqliteValue[];
}

/** What one statement did: the rows it returned and how many rows it changed (0 when none; D1 also counts rows its triggers changed). */
export interface SqliteResult {
  readonly rows: readonly SqliteRow[];
  readonly changes: number;
}

/**
 * The little of a SQLite engine the stores need, so one store runs on
 * `node:sqlite`, `bun:sqlite` and Cloudflare D1 alike.
 *
 * Contract:
 * - `batch` runs its statements in order in one transaction: they all take
 *   effect or none does (a statement that throws rolls the batch back and
 *   the promise rejects with that error). A statement may read what an
 *   earlier one of the batch wrote, and SQL's `changes()` in a statement
 *   is the count of the statement before it. It resolves once the
 *   transaction is durable as the driver was opened (see each driver).
 * - `query` runs one statement on its own (its own transaction).
 * - Parameters bind in order to `?1`, `?2` ...
 * - After `close`, calls reject.
 */
export interface SqliteDriver {
  /** What the driver is, for messages (`node:sqlite /path/tasks.db`, `D1`). */
  readonly name: string;
  batch(statements: readonly SqliteStatement[]): Promise<SqliteResult[]>;
  query(sql: string, params?: readonly SqliteValue[]): Promise<SqliteResult>;
  close(): Promise<void>;
}

