import { randomId } from '../random-id.js';
import type { Logger } from '../observability/logger.js';
import type { PushConfigStore, PushSource } from './push-config-store.js';

/** How long a delivery's claim on a config lasts unless renewed: 15 s. */
export const DEFAULT_CLAIM_TTL_MS = 15_000;
/** How often a delivery on a shared store looks for configs left behind by a stopped process: 1 s. */
export const DEFAULT_CLAIM_SWEEP_MS = 1_000;

const keyOf = (taskId: string, configId: string) => `${taskId}\u0000${configId}`;

/** Of a claim's time to live, the share after which a claim this process could not renew counts as lost here (the store's expiry comes later). */
const SAFE_SHARE = 0.9;

/** A monotonic clock in ms: a step of the wall clock never moves it. */
const monotonic = (): number => performance.now();

/**
 * A claim this delivery holds: `lost` once a renewal found another process
 * holding it, or none reached the store for nearly its time to live; the
 * renewal in flight, if any; when the last one that succeeded was sent.
 */
interface Held {
  readonly taskId: string;
  readonly configId: string;
  lost: boolean;
  renewing: Promise<unknown> | undefined;
  renewedAt: number;
}

/**
 * A delivery's claims on the configs of a push store that several processes
 * share (one whose `claim` exists): one process at a time delivers a
 * config's events, in order from its cursor. Claims held are renewed every
 * third of their time to live, all in one call when the store has
 * `renewClaims` (a long retry wait keeps its claim); a claim that could not
 * be renewed for nine tenths of its time to live is given up here, before
 * the store lets another process take it (its drain's `holds()` turns
 * false). Configs whose claim expired (their claimer stopped mid-delivery,
 * or stopped cleanly and handed them over) are handed to `onBehind` every
 * sweep, to go on from their cursor. Times are taken on a monotonic clock
 * (`now`), never the wall clock. With a store of one process, every claim
 * is granted at once and nothing runs.
 */
export class DeliveryClaims {
  /** This delivery's name as a claim holder. */
  readonly holder = randomId();
  private readonly held = new Map<string, Held>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly configs: PushConfigStore;

  constructor(
    private readonly source: PushSource,
    private readonly onBehind: (taskId: string, configId: string) => void,
    private readonly ttlMs = DEFAULT_CLAIM_TTL_MS,
    private readonly logger?: Logger,
    private readonly now: () => number = monotonic,
  ) {
    this.configs = source.configs;
  }

  /** True when the store is shared (its configs are claimed before delivery). */
  get shared(): boolean {
    return this.configs.claim !== undefined;
  }

  /** Starts the renewals and the sweep (a shared store only). */
  start(sweepMs = DEFAULT_CLAIM_SWEEP_MS): void {
    if (!this.shared) return;
    this.every(this.ttlMs / 3, () => this.renew());
    const sweep = this.configs.expiredClaims?.bind(this.configs);
    if (sweep) this.every(sweepMs, async () => (await sweep()).forEach(({ taskId, configId }) => this.onBehind(taskId, configId)));
  }

  /**
   * Runs `drain` under the config's claim: `'taken'` (nothing run) while
   * another process holds it (it delivers the events meanwhile), or when
   * the claim was lost during the drain (`drain` is given `holds()`, false
   * from then on: it must stop delivering); else, after releasing it,
   * `'behind'` when events came meanwhile that another process committed
   * and left to this one (drain again), `'done'` otherwise.
   */
  async drain(taskId: string, configId: string, drain: (holds: () => boolean) => Promise<void>): Promise<'taken' | 'behind' | 'done'> {
    if (!(await this.take(taskId, configId))) return 'taken';
    const held = this.held.get(keyOf(taskId, configId));
    try {
      await drain(() => held === undefined || this.holding(held));
    } finally {
      await this.release(taskId, configId);
    }
    if (held?.lost) return 'taken';
    return (await this.stillBehind(taskId, configId)) ? 'behind' : 'done';
  }

  /** Takes the claim on a config; false while another process holds it (it delivers the events meanwhile). */
  async take(taskId: string, configId: string): Promise<boolean> {
    if (!this.shared) return true;
    const sent = this.now();
    const taken = await this.configs.claim!(taskId, configId, this.holder, this.ttlMs);
    if (taken) this.held.set(keyOf(taskId, configId), { taskId, configId, lost: false, renewing: undefined, renewedAt: sent });
    return taken;
  }

  /** Gives the claim on a config up (after a renewal in flight, so that renewal cannot take it again). */
  async release(taskId: string, configId: string): Promise<void> {
    const key = keyOf(taskId, configId);
    const held = this.held.get(key);
    if (held === undefined) return;
    this.held.delete(key);
    await held.renewing?.catch(() => undefined);
    await this.configs.release?.(taskId, configId, this.holder);
  }

  /**
   * On a shared store, after a release: true when the task has events after
   * the config's cursor (another process committed them while this one held
   * the claim, and left them to it).
   */
  async stillBehind(taskId: string, configId: string): Promise<boolean> {
    if (!this.shared) return false;
    const entry = await this.configs.get(taskId, configId);
    const record = entry && (await this.source.tasks.get(taskId));
    return record !== undefined && entry !== undefined && record.lastSequence > entry.delivered;
  }

  /** Stops renewing and sweeping, and gives up every claim still held. */
  async close(): Promise<void> {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    await Promise.all([...this.held.values()].map(({ taskId, configId }) => this.release(taskId, configId).catch(() => undefined)));
  }

  /** Renews every claim held: in one call with `renewClaims`, else one `claim` per config. */
  private async renew(): Promise<void> {
    const batch = [...this.held];
    if (batch.length === 0) return;
    const sent = this.now();
    const { renewClaims } = this.configs;
    if (renewClaims) {
      const renewing = renewClaims.call(this.configs, this.holder, batch.map(([, { taskId, configId }]) => ({ taskId, configId })), this.ttlMs);
      for (const [, held] of batch) held.renewing = renewing;
      const lost = await renewing.finally(() => batch.forEach(([, held]) => held.renewing === renewing && (held.renewing = undefined)));
      const gone = new Set(lost.map(({ taskId, configId }) => keyOf(taskId, configId)));
      for (const [key, held] of batch) this.renewed(key, held, !gone.has(key), sent);
      return;
    }
    for (const [key, held] of batch) {
      // Released meanwhile: a renewal now would take the claim again, and nobody would renew it.
      if (this.held.get(key) !== held) continue;
      const renewing = this.configs.claim!(held.taskId, held.configId, this.holder, this.ttlMs);
      held.renewing = renewing;
      this.renewed(key, held, await renewing.finally(() => (held.renewing = undefined)), sent);
    }
  }

  /** What a renewal sent at `sent` found: still held (good for a time to live from then), or held by another process now. */
  private renewed(key: string, held: Held, ok: boolean, sent: number): void {
    if (this.held.get(key) !== held || held.lost) return;
    if (ok) held.renewedAt = Math.max(held.renewedAt, sent);
    // Another process holds it now (ours expired): it delivers from the cursor; this one stops.
    else this.lose(key, held, 'Taskwire push: another process took over the delivery to a config; this one stops delivering it');
  }

  /** True while `held` is held: not lost, and renewed within nine tenths of its time to live (else it is given up now). */
  private holding(held: Held): boolean {
    if (held.lost) return false;
    if (this.now() - held.renewedAt < this.ttlMs * SAFE_SHARE) return true;
    this.lose(keyOf(held.taskId, held.configId), held, 'Taskwire push: this process could not renew its claim on a config for nearly its whole time to live; it stops delivering it before another process may take it over');
    return false;
  }

  private lose(key: string, held: Held, message: string): void {
    held.lost = true;
    if (this.held.get(key) === held) this.held.delete(key);
    this.logger?.warn({ taskId: held.taskId, configId: held.configId }, message);
  }

  private every(ms: number, job: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      job()
        .catch((error: unknown) => this.logger?.warn({ error: String(error) }, 'Taskwire push: a claim renewal or sweep failed; it runs again shortly'))
        .finally(() => (busy = false));
    }, ms);
    (timer as { unref?: () => void }).unref?.();
    this.timers.push(timer);
  }
}
