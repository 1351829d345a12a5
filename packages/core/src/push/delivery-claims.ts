import { randomId } from '../service/random-id.js';
import type { Logger } from '../service/agent-run.js';
import type { PushConfigStore, PushSource } from './push-config-store.js';

/** How long a delivery's claim on a config lasts unless renewed: 15 s. */
export const DEFAULT_CLAIM_TTL_MS = 15_000;
/** How often a delivery on a shared store looks for configs left behind by a stopped process: 1 s. */
export const DEFAULT_CLAIM_SWEEP_MS = 1_000;

const keyOf = (taskId: string, configId: string) => `${taskId}\u0000${configId}`;

/** A claim this delivery holds: `lost` once a renewal found another process holding it; the renewal in flight, if any. */
interface Held {
  readonly taskId: string;
  readonly configId: string;
  lost: boolean;
  renewing: Promise<unknown> | undefined;
}

/**
 * A delivery's claims on the configs of a push store that several processes
 * share (one whose `claim` exists): one process at a time delivers a
 * config's events, in order from its cursor. Claims held are renewed every
 * third of their time to live (a long retry wait keeps its claim); configs
 * whose claim expired (their claimer stopped mid-delivery) are handed to
 * `onBehind` every sweep, to go on from their cursor. With a store of one
 * process, every claim is granted at once and nothing runs.
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
    this.every(this.ttlMs / 3, async () => {
      for (const [key, held] of [...this.held]) {
        // Released meanwhile: a renewal now would take the claim again, and nobody would renew it.
        if (this.held.get(key) !== held) continue;
        held.renewing = this.configs.claim!(held.taskId, held.configId, this.holder, this.ttlMs);
        const renewed = await held.renewing.finally(() => (held.renewing = undefined));
        if (renewed || this.held.get(key) !== held) continue;
        // Another process holds it now (ours expired): it delivers from the cursor; this one stops.
        held.lost = true;
        this.held.delete(key);
        this.logger?.warn({ taskId: held.taskId, configId: held.configId }, 'Taskwire push: another process took over the delivery to a config; this one stops delivering it');
      }
    });
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
      await drain(() => held === undefined || !held.lost);
    } finally {
      await this.release(taskId, configId);
    }
    if (held?.lost) return 'taken';
    return (await this.stillBehind(taskId, configId)) ? 'behind' : 'done';
  }

  /** Takes the claim on a config; false while another process holds it (it delivers the events meanwhile). */
  async take(taskId: string, configId: string): Promise<boolean> {
    if (!this.shared) return true;
    const taken = await this.configs.claim!(taskId, configId, this.holder, this.ttlMs);
    if (taken) this.held.set(keyOf(taskId, configId), { taskId, configId, lost: false, renewing: undefined });
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
