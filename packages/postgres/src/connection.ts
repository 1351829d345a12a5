import type { Logger } from '@taskwire/core';
import pg from 'pg';
import { DEFAULT_SCHEMA, quoteSchema } from './schema-name.js';

/** Where the tables are: an existing pool, or a connection string the store opens a pool for. */
export interface PostgresConnectionOptions {
  /** A pool of yours (node-postgres). The store never ends it; attach your own `error` listener to it. */
  readonly pool?: pg.Pool;
  /** A connection URL (`postgres://user:password@host:5432/db`); the store opens a pool for it and ends it on `close`. */
  readonly connectionString?: string;
  /** The schema of Taskwire's tables (default `taskwire`); any name, it is quoted. */
  readonly schema?: string;
  /** Connections of a pool the store opens (default 10). */
  readonly poolSize?: number;
  /**
   * How long one statement may run, in milliseconds, before the server
   * cancels it and the client gives up (default 30,000). Also bounds how
   * long a call waits on a database that stopped answering.
   */
  readonly statementTimeoutMs?: number;
  /** How long opening a connection may take, in milliseconds (default 5,000). */
  readonly connectTimeoutMs?: number;
  /** Told about connections lost while idle (the pool replaces them). */
  readonly logger?: Logger;
}

/** A pool with what the store needs to know of it. */
export interface Connection {
  readonly pool: pg.Pool;
  /** True when the store opened the pool (and ends it on close). */
  readonly owned: boolean;
  readonly schema: string;
  /** The schema as a quoted SQL identifier. */
  readonly qualified: string;
  /** How to name the database in messages (the URL without its password). */
  readonly where: string;
}

/** Default of {@link PostgresConnectionOptions.statementTimeoutMs}. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** Default of {@link PostgresConnectionOptions.connectTimeoutMs}. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/** A connection URL with its password replaced by `***`, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<the connection string>';
  }
}

/**
 * Resolves the connection options: uses `pool` as given, or opens one for
 * `connectionString` with sensible timeouts (connect, statement, client
 * read), TCP keep-alive and an `error` listener (a connection lost while
 * idle is logged and replaced, never a crash). Throws a TypeError when
 * neither or both are given, or the schema name is invalid.
 */
export function connect(options: PostgresConnectionOptions, owner: string): Connection {
  if (!options.pool === !options.connectionString) {
    throw new TypeError(`${owner}: pass exactly one of pool and connectionString`);
  }
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const qualified = quoteSchema(schema);
  if (options.pool) return { pool: options.pool, owned: false, schema, qualified, where: '<your database URL>' };
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: statementTimeout,
    // The client stops waiting a little after the server would have cancelled: a dead peer cannot hang a call.
    query_timeout: statementTimeout + 2_000,
    idle_in_transaction_session_timeout: statementTimeout,
    keepAlive: true,
    // A peer that vanished is probed after 5 s of silence (the OS default waits two hours).
    keepAliveInitialDelayMillis: 5_000,
    application_name: 'taskwire',
  });
  pool.on('error', (error) => options.logger?.warn({ error: error.message }, 'Taskwire postgres: an idle connection was lost; the pool opens a new one when needed'));
  return { pool, owned: true, schema, qualified, where: redactUrl(options.connectionString!) };
}
