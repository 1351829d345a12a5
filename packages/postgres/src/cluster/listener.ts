import type { Logger } from '@taskwire/core';
import pg from 'pg';
import { parsePayload } from './names.js';

/** Delays between reconnection attempts of the LISTEN connection, in ms (the last one repeats). */
const RECONNECT_DELAYS_MS = [0, 100, 250, 500, 1_000];

/** What a {@link CommitListener} is built from. */
export interface CommitListenerOptions {
  /** How to open the dedicated connection (never taken from a pool: LISTEN holds its session). */
  readonly client: pg.ClientConfig;
  /** The channel the task store notifies commits on. */
  readonly channel: string;
  /** The replica's liveness lock, held by this connection's session: `pg_advisory_lock(classKey, processKey)`. */
  readonly lock: { readonly classKey: number; readonly processKey: number };
  /** Called with each commit announced on the channel (task id and the log's last sequence). */
  readonly onCommit: (taskId: string, lastSequence: number) => void;
  /** Called after every (re)connection, once listening: notifications may have been missed meanwhile. */
  readonly onConnected: () => void;
  readonly logger?: Logger | undefined;
}

/**
 * The one LISTEN connection of a replica. It hears every commit of its
 * schema (payloads carry only ids and sequence numbers) and holds the
 * replica's liveness lock in the same session, so other replicas see the
 * lock vanish as soon as this process dies. When the connection drops it
 * reconnects with backoff and calls `onConnected` (the coordinator then
 * re-reads every task it watches: a lost notification only delays).
 */
export class CommitListener {
  private client: pg.Client | undefined;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private locked = false;
  /** When the current connection started listening (ms since the epoch), or undefined while disconnected. */
  connectedSince: number | undefined;

  constructor(private readonly options: CommitListenerOptions) {}

  /**
   * Opens the connection, starts listening and takes the liveness lock.
   * Resolves true once listening with the lock held; false when the lock
   * is held by another session (the process key is taken: pick another).
   * Rejects when the database cannot be reached.
   */
  async start(): Promise<boolean> {
    await this.open();
    if (!this.locked) {
      await this.close();
      return false;
    }
    return true;
  }

  /** Ends the connection (releasing the liveness lock) and stops reconnecting. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    this.connectedSince = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = new pg.Client({ ...this.options.client, keepAlive: true, application_name: 'taskwire listener' });
    client.on('notification', (message) => {
      if (message.channel !== this.options.channel) return;
      const parsed = parsePayload(message.payload);
      if (parsed) this.options.onCommit(parsed.taskId, parsed.lastSequence);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, undefined));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
      const { classKey, processKey } = this.options.lock;
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [classKey, processKey]);
      this.locked = rows[0]!.locked;
    } catch (error) {
      await client.end().catch(() => undefined);
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
    this.options.onConnected();
  }

  private lost(client: pg.Client, error: Error | undefined): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.connectedSince = undefined;
    this.locked = false;
    client.end().catch(() => undefined);
    this.options.logger?.warn({
      error: error?.message ?? 'the server closed it',
    }, 'Taskwire postgres: the LISTEN connection was lost; reconnecting (wake-ups are late meanwhile, none is lost)');
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.attempt++, RECONNECT_DELAYS_MS.length - 1)]!;
    this.timer = setTimeout(() => {
      this.open().then(
        () => {
          // The old session may linger on the server a while (a half-open connection): take the lock when it is gone.
          if (!this.locked && !this.closed) this.retakeLock();
        },
        () => this.reconnect(),
      );
    }, delay);
    this.timer.unref();
  }

  private retakeLock(): void {
    this.timer = setTimeout(() => {
      const client = this.client;
      if (!client || this.closed) return;
      const { classKey, processKey } = this.options.lock;
      client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [classKey, processKey]).then(
        ({ rows }) => {
          if (this.client !== client) return;
          this.locked = rows[0]!.locked;
          if (!this.locked) this.retakeLock();
        },
        () => undefined,
      );
    }, 1_000);
    this.timer.unref();
  }
}
