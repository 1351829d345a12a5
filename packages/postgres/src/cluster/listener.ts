import type { Logger } from '@taskwire/core';
import pg from 'pg';
import { newClient } from '../writable-client.js';
import { parsePayload } from './names.js';
import { parseAbortRequest } from './abort-requests.js';

/** Delays between reconnection attempts of the LISTEN connection, in ms (the last one repeats). */
const RECONNECT_DELAYS_MS = [0, 100, 250, 500, 1_000, 2_000];

/** What a {@link CommitListener} is built from. */
export interface CommitListenerOptions {
  /** How to open the dedicated connection (never taken from a pool: LISTEN holds its session). */
  readonly client: pg.ClientConfig;
  /** How the connection is named in `pg_stat_activity.application_name` (say, with the replica's process id). */
  readonly name: string;
  /** The channel the task store notifies commits on. */
  readonly channel: string;
  /** How often the connection is pinged (`SELECT 1`) to find a silent peer. */
  readonly pingIntervalMs: number;
  /** How long a ping may take before the connection counts as dead (half-open) and is replaced. */
  readonly pingTimeoutMs: number;
  /** Called with each commit announced on the channel (task id and the log's last sequence). */
  readonly onCommit: (taskId: string, lastSequence: number) => void;
  /** Called with each abort request announced on the channel (see `AbortRequests`). Must not throw. */
  readonly onAbortRequest?: (taskId: string, graceMs: number) => void;
  /** Called after every (re)connection, once listening: notifications may have been missed meanwhile. Must not throw. */
  readonly onConnected: () => void;
  /** Called when a ping went unanswered (the database or the path to it went silent). Must not throw. */
  readonly onSilent: () => void;
  /**
   * With a replica name: the text whose session-level advisory lock
   * (`pg_try_advisory_lock(hashtextextended(lock, 0))`) the connection
   * takes after LISTEN, each time it connects; `onLock` hears whether it
   * was granted (`first`: at start, not after a reconnection). Granted
   * means no other live session holds it. Must not throw.
   */
  readonly lock?: { readonly name: string; readonly onLock: (granted: boolean, first: boolean) => void } | undefined;
  readonly logger?: Logger | undefined;
}

/**
 * The one LISTEN connection of a replica. It hears every commit of its
 * schema (payloads carry only ids and sequence numbers), and the abort
 * requests replicas send on the same channel. A connection can
 * die three ways, and each is noticed: the server or a proxy ends it
 * (`error`/`end`), the peer vanishes (TCP keep-alive after a short idle
 * time), or the path goes silent while the socket stays open (a proxy or
 * NAT that stops forwarding, a failover leaving a half-open socket): a ping
 * every `pingIntervalMs` that is not answered within `pingTimeoutMs`
 * destroys the socket. Then it reconnects with backoff and calls
 * `onConnected` (the coordinator re-reads every task it watches and renews
 * its leases: a lost notification only delays). With `lock`, each
 * connection also takes the replica name's advisory lock (`holdsLock`):
 * the lock lives exactly as long as the session.
 */
export class CommitListener {
  private client: pg.Client | undefined;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private pinger: NodeJS.Timeout | undefined;
  private pinging = false;
  private closed = false;
  /** When the current connection started listening (ms since the epoch), or undefined while disconnected. */
  connectedSince: number | undefined;
  /** How many times the connection was lost (dropped, reset or silent) since it was opened. */
  losses = 0;
  /** With `lock`: whether the current connection holds it (false while disconnected). */
  holdsLock = false;

  constructor(private readonly options: CommitListenerOptions) {}

  /** Opens the connection and starts listening; rejects when the database cannot be reached. */
  async start(): Promise<void> {
    await this.open();
    this.pinger = setInterval(() => this.ping(), this.options.pingIntervalMs);
    this.pinger.unref();
  }

  /** Ends the connection and stops reconnecting and pinging. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    const client = this.client;
    this.client = undefined;
    this.connectedSince = undefined;
    this.holdsLock = false;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = newClient({
      ...this.options.client,
      keepAlive: true,
      keepAliveInitialDelayMillis: this.options.pingIntervalMs,
      connectionTimeoutMillis: this.options.client.connectionTimeoutMillis || this.options.pingTimeoutMs * 2,
      application_name: this.options.name,
    });
    client.on('notification', (message) => {
      if (message.channel !== this.options.channel) return;
      const parsed = parsePayload(message.payload);
      if (parsed) return this.options.onCommit(parsed.taskId, parsed.lastSequence);
      const request = parseAbortRequest(message.payload);
      if (request) this.options.onAbortRequest?.(request.taskId, request.graceMs);
    });
    client.on('error', (error) => this.lost(client, error.message));
    client.on('end', () => this.lost(client, 'the server closed it'));
    let granted = false;
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
      if (this.options.lock) {
        const { rows } = await client.query<{ granted: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS granted', [this.options.lock.name]);
        granted = rows[0]?.granted === true;
      }
    } catch (error) {
      destroy(client);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    // Only a connection that is listening counts: a drop before this point is a failed attempt, not a loss.
    this.client = client;
    this.attempt = 0;
    this.connectedSince = Date.now();
    this.holdsLock = granted;
    this.options.lock?.onLock(granted, this.losses === 0);
    this.options.onConnected();
  }

  /** One ping at a time; an unanswered one destroys the connection (it then reconnects). */
  private ping(): void {
    const client = this.client;
    if (client === undefined || this.pinging || this.closed) return;
    this.pinging = true;
    client
      // node-postgres honours a per-query read timeout (its types leave it out).
      .query({ text: 'SELECT 1', query_timeout: this.options.pingTimeoutMs } as pg.QueryConfig)
      .then(
        () => undefined,
        (error: unknown) => {
          if (this.client !== client) return;
          this.options.onSilent();
          this.lost(client, `no answer to a ping within ${this.options.pingTimeoutMs} ms (${String(error)})`);
        },
      )
      .finally(() => (this.pinging = false));
  }

  private lost(client: pg.Client, why: string): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.connectedSince = undefined;
    this.holdsLock = false;
    this.losses++;
    destroy(client);
    this.options.logger?.warn({ error: why }, 'Taskwire postgres: the LISTEN connection was lost; reconnecting (wake-ups are late meanwhile, none is lost)');
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt++, RECONNECT_DELAYS_MS.length - 1)]!;
    this.timer = setTimeout(() => {
      this.open().catch(() => this.reconnect());
    }, delay);
    this.timer.unref();
  }
}

/**
 * Ends a client's socket at once, without the goodbye `end()` waits for (a
 * silent peer never answers it). Its `error`/`end` handlers see the end.
 */
export function destroy(client: pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  if (stream) stream.destroy();
  else client.end().catch(() => undefined);
}
