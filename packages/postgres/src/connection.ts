import type { Logger } from '@taskwire/core';
import pg from 'pg';
import { DEFAULT_SCHEMA, quoteSchema } from './schema-name.js';
import { redactTargets, targetConfig } from './writable-client.js';

/** Where the tables are: an existing pool, or a connection string the store opens a pool for. */
export interface PostgresConnectionOptions {
  /** A pool of yours (node-postgres). The store never ends it; attach your own `error` listener to it. */
  readonly pool?: pg.Pool;
  /**
   * A connection URL (`postgres://user:password@host:5432/db`); the store
   * opens a pool for it and ends it on `close`. Several hosts as libpq
   * takes them (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`)
   * are tried in order: every connection (the store's, the cluster
   * coordinator's, LISTEN) goes to the one that takes writes and checks it
   * again after each reconnect; `target_session_attrs` may be `read-write`
   * (the default with several hosts), `primary` or `any`.
   */
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
  /**
   * A URL that reaches PostgreSQL itself, not through a connection pooler
   * (PgBouncer, Supabase's pooler, Neon's `-pooler` host, RDS Proxy), for
   * what needs a session of its own: the cluster coordinator's LISTEN
   * connection and its replica-name advisory lock, and `migrate`. Give it
   * when `connectionString` (or `pool`) goes through a pooler in
   * transaction mode; then `preparedStatements` defaults to false and the
   * pool the store opens sends no session settings at connection time (a
   * pooler refuses them; set `statement_timeout` on the role instead, see
   * the README). Without it, everything uses the one connection.
   */
  readonly directConnectionString?: string;
  /**
   * Whether statements are prepared once per connection under a name
   * (default true; false when `directConnectionString` is given). A
   * transaction-mode pooler hands each transaction to any server
   * connection, where a named statement may already exist or be missing:
   * say false there, and every statement is sent unnamed (parsed each
   * time). With your own `pool`, false needs a pool made with
   * `Client: UnnamedStatementClient`.
   */
  readonly preparedStatements?: boolean;
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

/**
 * A node-postgres client that sends every statement unnamed: a query
 * config's `name` (a prepared statement) is dropped, so nothing outlives
 * the transaction on the server. For pools behind a transaction-mode
 * pooler: `new pg.Pool({ ..., Client: UnnamedStatementClient })` (or a
 * subclass of it that calls `super.query`).
 */
export class UnnamedStatementClient extends pg.Client {}
const namedQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
(UnnamedStatementClient.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
  if (config !== null && typeof config === 'object' && 'name' in config && typeof (config as { submit?: unknown }).submit !== 'function') {
    const { name: _name, ...unnamed } = config as Record<string, unknown>;
    return namedQuery.call(this, unnamed, ...rest);
  }
  return namedQuery.call(this, config, ...rest);
};

/** Per pool: how to open a connection of its own (LISTEN, session advisory locks), when a direct URL was given. */
const sessionConfigs = new WeakMap<pg.Pool, pg.ClientConfig>();
/** Pools the store opened (their connections may be renamed). */
const ownedPools = new WeakSet<pg.Pool>();

/**
 * How to open a connection that keeps its session (LISTEN, session
 * advisory locks) to the database of `pool`: the direct URL given as
 * `directConnectionString` when the pool was resolved by {@link connect},
 * else the pool's own settings.
 */
export function sessionConfig(pool: pg.Pool): pg.ClientConfig {
  return sessionConfigs.get(pool) ?? (pool.options as pg.ClientConfig);
}

/** Whether `pool` goes through a pooler (a direct URL was given for sessions): it must get no session settings at connection time. */
export function isPooled(pool: pg.Pool): boolean {
  return sessionConfigs.has(pool);
}

/**
 * Names the connections of a pool the store opened `name` in
 * `pg_stat_activity.application_name`: new ones at connection time, ones
 * already open with `set_config` before their next statement (not behind a
 * pooler: there they keep their name until they are replaced).
 * A pool of yours is left as it is.
 */
export function nameConnections(pool: pg.Pool, name: string): void {
  if (!ownedPools.has(pool)) return;
  (pool.options as pg.ClientConfig).application_name = name;
  // Behind a pooler a SET-like statement may pin the connection (RDS Proxy): there only new connections get the name.
  if (isPooled(pool)) return;
  pool.on('acquire', (client) => {
    const parameters = (client as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters;
    if (parameters === undefined || parameters.application_name === name) return;
    parameters.application_name = name;
    // Queued ahead of the caller's statement, on its own (outside any transaction of the caller).
    client.query({ text: 'SELECT set_config($1, $2, false)', values: ['application_name', name] }).catch(() => undefined);
  });
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
    // Several hosts: not a URL the URL parser takes.
    return /^postgres(ql)?:\/\//i.test(url) ? redactTargets(url) : '<the connection string>';
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
  if (options.directConnectionString !== undefined && (typeof options.directConnectionString !== 'string' || options.directConnectionString === '')) {
    throw new TypeError(`${owner}: directConnectionString must be a non-empty connection URL`);
  }
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const qualified = quoteSchema(schema);
  const pooled = options.directConnectionString !== undefined;
  const prepare = options.preparedStatements ?? !pooled;
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const session = sessionSettings(options, statementTimeout);
  let pool: pg.Pool;
  if (options.pool) {
    pool = options.pool;
    const client = (pool.options as { Client?: unknown }).Client;
    if (!prepare && client !== UnnamedStatementClient && !(typeof client === 'function' && client.prototype instanceof UnnamedStatementClient)) {
      throw new TypeError(`${owner}: preparedStatements: false needs a pool made with \`Client: UnnamedStatementClient\` or a subclass of it (or pass connectionString)`);
    }
  } else {
    pool = new pg.Pool({
      ...targetConfig(options.connectionString!, prepare ? pg.Client : UnnamedStatementClient),
      max: options.poolSize ?? 10,
      idleTimeoutMillis: 30_000,
      // A pooler refuses session settings at connection time: the client-side read timeout alone bounds a call there.
      ...(pooled ? { ...session, statement_timeout: undefined, idle_in_transaction_session_timeout: undefined } : session),
    });
    ownedPools.add(pool);
    pool.on('error', (error) => options.logger?.warn({ error: error.message }, 'Taskwire postgres: an idle connection was lost; the pool opens a new one when needed'));
  }
  if (pooled) sessionConfigs.set(pool, { ...session, ...targetConfig(options.directConnectionString!) });
  const where = options.connectionString === undefined ? '<your database URL>' : redactUrl(options.connectionString);
  return { pool, owned: !options.pool, schema, qualified, where };
}

/** The settings of every connection the store opens: timeouts, keep-alive and its name. */
function sessionSettings(options: PostgresConnectionOptions, statementTimeout: number): pg.ClientConfig {
  return {
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    statement_timeout: statementTimeout,
    // The client stops waiting a little after the server would have cancelled: a dead peer cannot hang a call.
    query_timeout: statementTimeout + 2_000,
    idle_in_transaction_session_timeout: statementTimeout,
    keepAlive: true,
    // A peer that vanished is probed after 5 s of silence (the OS default waits two hours).
    keepAliveInitialDelayMillis: 5_000,
    application_name: 'taskwire',
  };
}
