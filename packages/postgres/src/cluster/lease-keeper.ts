import type { Logger } from '@taskwire/core';
import type pg from 'pg';
import { prepared } from '../schema-name.js';

interface Hold {
  readonly epoch: number;
  readonly onLost: () => void;
  /** When the last renewal that reached the database was sent (or the hold began), on the keeper's monotonic clock: the lease lasts at least its ttl from then. */
  renewedAt: number;
}

/** Of the lease's time to live, the share after which a lease not renewed counts as lost here (the database's expiry comes later). */
export const SAFE_SHARE = 0.9;

/**
 * Milliseconds on a monotonic clock (`performance.now()`): a step of the
 * wall clock (NTP, a suspended VM, an operator) never moves it, so it never
 * makes a healthy lease look stale, nor a stale one healthy. The database's
 * side of a lease uses the database's clock (`now()`).
 */
export const monotonicNow = (): number => performance.now();

/**
 * The leases a replica's runs hold, kept alive: renewed in one statement,
 * and given up by the replica itself when it could not renew one for
 * nearly the lease's whole time to live (it cannot reach the database:
 * its lease may expire and another replica take the task over, so its run
 * stops before that instead of committing late). A lease found taken over
 * or gone is reported once (`onLost`). Times are taken on a monotonic
 * clock (`now`, default {@link monotonicNow}), never the wall clock.
 */
export class LeaseKeeper {
  private readonly holds = new Map<string, Hold>();

  constructor(
    private readonly holder: string,
    private readonly ttlMs: number,
    private readonly logger: Logger | undefined,
    private readonly now: () => number = monotonicNow,
  ) {}

  /** The ids of the tasks whose lease is held here. */
  ids(): string[] {
    return [...this.holds.keys()];
  }

  /** Keeps the lease of `taskId` at `epoch` until the function returned is called; `onLost` is called at most once. */
  hold(taskId: string, epoch: number, onLost: () => void): () => void {
    const held: Hold = { epoch, onLost, renewedAt: this.now() };
    this.holds.set(taskId, held);
    return () => {
      if (this.holds.get(taskId) === held) this.holds.delete(taskId);
    };
  }

  /** Renews every lease held, in one statement (`statement`: `$1` holder, `$2` ids, `$3` epochs, `$4` ttl; renews the holder's heartbeat, or the rows too, and returns the ids lost); nothing when none is held. */
  async renew(pool: pg.Pool, statement: string): Promise<void> {
    if (this.holds.size === 0) return;
    const held = [...this.holds];
    const sent = this.now();
    const { rows } = await pool.query<{ id: string }>(prepared(statement, [this.holder, held.map(([id]) => id), held.map(([, h]) => h.epoch), this.ttlMs]));
    const lost = new Set(rows.map((row) => row.id));
    for (const [id, hold] of held) {
      if (this.holds.get(id) !== hold) continue;
      if (!lost.has(id)) hold.renewedAt = sent;
      else this.lose(id, hold, 'Taskwire postgres: this replica lost the lease of a task it runs (another replica settled it or took it over); its run stops');
    }
  }

  /** Gives up the leases not renewed for nearly their time to live (see the class comment); resolves how many. */
  giveUpStale(now = this.now()): number {
    let given = 0;
    for (const [id, hold] of [...this.holds]) {
      if (now - hold.renewedAt < this.ttlMs * SAFE_SHARE) continue;
      given++;
      this.lose(id, hold, 'Taskwire postgres: this replica could not renew the lease of a task it runs for nearly the whole lease (the database is unreachable); its run stops before another replica takes the task over');
    }
    return given;
  }

  /** Forgets every lease (the coordinator closed). */
  clear(): void {
    this.holds.clear();
  }

  private lose(id: string, hold: Hold, message: string): void {
    this.holds.delete(id);
    this.logger?.warn({ taskId: id, epoch: hold.epoch }, message);
    try {
      hold.onLost();
    } catch (error) {
      this.logger?.error({ taskId: id, error: String(error) }, 'Taskwire postgres: a lost-lease callback threw');
    }
  }
}
