import type { CommitResult } from '../store/task-store.js';
import type { LeaseCondition, TaskCoordinator } from './coordination.js';

/** The epoch of the lease a commit with a `claim` condition took: the store's `leaseEpoch` when it gave one, else the version the commit made. */
export function claimEpoch(result: CommitResult): number {
  return result.leaseEpoch ?? result.version;
}

/** What {@link TaskLeases} tells the service about a task it holds. */
export interface LeaseEvents {
  /** Another process may have committed to the task (a cancel, say): `lastSequence` is the log's last sequence. */
  changed(taskId: string, lastSequence: number): void;
  /** A renewal found the lease of the run at `epoch` gone: another process settled the task or took it over. That run must stop. */
  lost(taskId: string, epoch: number): void;
}

/**
 * The lease of one agent run, as the run knows it: `epoch` is the fencing
 * token of the claim that started it, set once the claim is committed (a
 * held-back task claims with its first commit). A run's commits carry its
 * own epoch, never a later run's.
 */
export interface RunLease {
  epoch?: number | undefined;
}

/**
 * How many tasks' latest held epochs are kept (for {@link TaskLeases.claimIfFree}).
 * An entry matters for about two leases (until the self-sweep took the row
 * at a new epoch, or the task settled), so the oldest are forgotten.
 */
const HELD_EPOCHS_KEPT = 100_000;

interface Held {
  readonly epoch: number;
  /** True once a renewal found the lease gone (the entry stays until its run releases it). */
  lost: boolean;
  stop(): void;
}

/**
 * The leases of the runs in this process when several processes share the
 * store (a coordinator that is `shared`). A lease belongs to a run, not to
 * a task id: a commit that starts a run claims the task's lease; the
 * commits of that run carry the epoch its claim got (the fencing token);
 * while held, the lease is renewed and the task is watched for commits of
 * other processes. A newer run's claim on the same task supersedes the
 * older one here as in the store (the older run's commits are refused from
 * then on), and the end of the older run releases nothing of the newer one.
 */
export class TaskLeases {
  private readonly held = new Map<string, Held>();
  /** The latest epoch each task's lease was held at here (insertion order: the oldest forgotten beyond {@link HELD_EPOCHS_KEPT}). */
  private readonly epochsHeld = new Map<string, number>();
  private events: LeaseEvents | undefined;

  constructor(readonly coordinator: TaskCoordinator) {}

  /** Where changes and losses of held leases are reported (set once, by the service). */
  bind(events: LeaseEvents): void {
    this.events = events;
  }

  /**
   * The condition of a commit to `taskId`: a claim when it starts a run
   * here; else a hold at `epoch` (a run's own), or at the epoch held here
   * now when none is given; none when nothing is held. A held lease a
   * renewal found lost still gives its epoch (unlike {@link epochOf}): the
   * store then refuses the hold (`LeaseLostError`), since epochs never
   * repeat and the row no longer names this one, or, when the row still
   * names it (renewals only stopped reaching the database), no other process
   * holds the task and the commit is as fenced as any. No condition at all
   * would pass whoever holds the lease.
   */
  condition(taskId: string, claim: boolean, epoch?: number): LeaseCondition | undefined {
    const { processId: holder, leaseTtlMs: ttlMs } = this.coordinator;
    if (claim) return { kind: 'claim', holder, ttlMs };
    const at = epoch ?? this.held.get(taskId)?.epoch;
    return at === undefined ? undefined : { kind: 'hold', holder, epoch: at, ttlMs };
  }

  /**
   * The condition of a claim that takes `taskId` only when no other process
   * holds a lease on it, live or expired, and this process holds it at no
   * epoch it held before (see `LeaseCondition.ifFree` and `heldEpoch`).
   */
  claimIfFree(taskId: string): LeaseCondition {
    return { kind: 'claim', holder: this.coordinator.processId, ttlMs: this.coordinator.leaseTtlMs, ifFree: true, heldEpoch: this.epochsHeld.get(taskId) };
  }

  /** The epoch of the lease this process holds on `taskId` now, if any (none once the lease was found lost). */
  epochOf(taskId: string): number | undefined {
    const held = this.held.get(taskId);
    return held === undefined || held.lost ? undefined : held.epoch;
  }

  /** This process now holds the lease of `taskId` at `epoch` (a claim commit, or a take-over): renewed and watched until {@link release}. */
  claimed(taskId: string, epoch: number): void {
    this.held.get(taskId)?.stop();
    this.epochsHeld.delete(taskId);
    this.epochsHeld.set(taskId, epoch);
    if (this.epochsHeld.size > HELD_EPOCHS_KEPT) this.epochsHeld.delete(this.epochsHeld.keys().next().value!);
    const stopHold = this.coordinator.hold(taskId, epoch, () => {
      if (this.held.get(taskId) === held) held.lost = true;
      this.events?.lost(taskId, epoch);
    });
    const stopWatch = this.coordinator.watch(taskId, (lastSequence) => this.events?.changed(taskId, lastSequence));
    const held: Held = {
      epoch,
      lost: false,
      stop() {
        stopHold();
        stopWatch();
      },
    };
    this.held.set(taskId, held);
  }

  /** Stops renewing and watching `taskId` (its run here ended); with `epoch`, only when the lease held is still that run's. */
  release(taskId: string, epoch?: number): void {
    const held = this.held.get(taskId);
    if (held === undefined || (epoch !== undefined && held.epoch !== epoch)) return;
    this.held.delete(taskId);
    held.stop();
  }
}
