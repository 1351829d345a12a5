import type { Logger } from '@taskwire/core';
import pg from 'pg';
import { isPooled } from '../connection.js';
import { destroy } from './listener.js';

/**
 * The connections of a pool, as its public events show them: which are
 * checked out and which are idle.
 */
export class PoolConnections {
  private readonly busy = new Set<pg.Client>();
  private readonly idle = new Set<pg.Client>();

  constructor(pool: pg.Pool) {
    pool.on('acquire', (client) => {
      this.idle.delete(client);
      this.busy.add(client);
    });
    pool.on('release', (_error: unknown, client: pg.Client) => {
      if (!this.busy.delete(client)) return;
      this.idle.add(client);
    });
    pool.on('remove', (client) => {
      this.busy.delete(client);
      this.idle.delete(client);
    });
  }

  /**
   * Ends connections at once (no goodbye: the peer may be silent). Idle ones
   * only, unless `busy` too: then a statement in flight fails promptly with a
   * connection error instead of waiting for its read timeout.
   */
  destroy(busy: boolean): number {
    const doomed = [...this.idle, ...(busy ? this.busy : [])];
    for (const client of doomed) destroy(client);
    return doomed.length;
  }
}

/** Connections of the background pool: one for renewals and one for everything else the coordinator reads. */
const BACKGROUND_CONNECTIONS = 2;

/**
 * The coordinator's own small pool, on the same database as the store's
 * pool (`from`): renewals, the sweep, the catch-up and take-overs never
 * wait behind request traffic. Its statements give up after
 * `queryTimeoutMs` (a silent peer cannot hold a renewal past the lease);
 * they are named `name` in `pg_stat_activity`. It goes where `from` goes
 * (through a pooler too: every statement is a transaction of its own),
 * with `from`'s client class (unnamed statements when it has them).
 * Lost idle connections are logged (debug), never thrown.
 */
export function backgroundPool(from: pg.Pool, name: string, queryTimeoutMs: number, logger?: Logger): { pool: pg.Pool; connections: PoolConnections } {
  const options = from.options as pg.PoolConfig;
  const pool = new pg.Pool({
    ...options,
    max: BACKGROUND_CONNECTIONS,
    min: 0,
    idleTimeoutMillis: 60_000,
    connectionTimeoutMillis: Math.min(options.connectionTimeoutMillis || queryTimeoutMs, queryTimeoutMs),
    query_timeout: queryTimeoutMs,
    // Behind a pooler, no session setting at connection time (it refuses them); the read timeout still bounds a renewal.
    statement_timeout: isPooled(from) ? undefined : queryTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: Math.min(options.keepAliveInitialDelayMillis ?? queryTimeoutMs, queryTimeoutMs),
    application_name: name,
  });
  pool.on('error', (error) => logger?.debug?.({ error: error.message }, 'Taskwire postgres: an idle cluster connection was lost; it is replaced when needed'));
  return { pool, connections: new PoolConnections(pool) };
}
