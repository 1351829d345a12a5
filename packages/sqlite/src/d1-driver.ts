import type { SqliteDriver, SqliteResult, SqliteRow, SqliteStatement, SqliteValue } from './driver.js';

/** A prepared statement of a Cloudflare D1 binding (the part the driver uses). */
export interface D1PreparedLike {
  bind(...values: unknown[]): D1PreparedLike;
  all(): Promise<D1ResultLike>;
}

/** What D1 answers for one statement. */
export interface D1ResultLike {
  readonly results?: readonly unknown[];
  readonly meta?: { readonly changes?: number };
}

/** A Cloudflare D1 database binding (`env.DB`), as far as the driver uses it. */
export interface D1DatabaseLike {
  prepare(sql: string): D1PreparedLike;
  batch(statements: D1PreparedLike[]): Promise<D1ResultLike[]>;
}

/**
 * A {@link SqliteDriver} on a Cloudflare D1 binding: a batch is D1's
 * `batch()` (one transaction, statements in order), a query one statement.
 * D1 makes every commit durable before it answers. Runs in Workers (and
 * anywhere else a D1 binding is given, such as miniflare).
 */
export function d1Driver(db: D1DatabaseLike): SqliteDriver {
  let closed = false;
  const bound = (s: SqliteStatement) => db.prepare(s.sql).bind(...s.params);
  const result = (r: D1ResultLike): SqliteResult => ({ rows: (r.results ?? []) as SqliteRow[], changes: r.meta?.changes ?? 0 });
  const check = () => {
    if (closed) throw new Error('the D1 driver is closed');
  };
  return {
    name: 'D1',
    async batch(statements: readonly SqliteStatement[]): Promise<SqliteResult[]> {
      check();
      return (await db.batch(statements.map(bound))).map(result);
    },
    async query(sql: string, params: readonly SqliteValue[] = []): Promise<SqliteResult> {
      check();
      return result(await bound({ sql, params }).all());
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
