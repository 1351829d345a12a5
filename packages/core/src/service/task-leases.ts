import type { LeaseCondition, TaskCoordinator } from './coordination.js';

/** What {@link TaskLeases} tells the service about a task it holds. */
export interface LeaseEvents {
  /** Another process may have committed to the task (a cancel, say): `lastSequence` is the log's last sequence. */
  changed(taskId: string, lastSequence: number): void;
  /** A renewal found the lease gone: another process settled the task or took it over. The run must stop. */
  lost(taskId: string): void;
}

interface Held {
  readonly epoch: number;
  stop(): void;
}

/**
 * The leases of the runs in this process when several processes share the
 * store (a coordinator that is `shared`). A commit that starts a run claims
 * the task's lease; the commits of that run carry the epoch the claim got
 * (the fencing token); while held, the lease is renewed and the task is
 * watched for commits of other processes; the run's end releases it here
 * (the store already released it with the commit that settled the task).
 */
export class TaskLeases {
  private readonly held = new Map<string, Held>();
  private events: LeaseEvents | undefined;

  constructor(readonly coordinator: TaskCoordinator) {}

  /** Where changes and losses of held leases are reported (set once, by the service). */
  bind(events: LeaseEvents): void {
    this.events = events;
  }

  /** The condition of a commit to `taskId`: a claim when it starts a run here, the held lease otherwise (none when not held). */
  condition(taskId: string, claim: boolean): LeaseCondition | undefined {
    const { processId: holder, leaseTtlMs: ttlMs } = this.coordinator;
    if (claim) return { kind: 'claim', holder, ttlMs };
    const held = this.held.get(taskId);
    return held === undefined ? undefined : { kind: 'hold', holder, epoch: held.epoch, ttlMs };
  }

  /** This process now holds the lease of `taskId` at `epoch` (a claim commit, or a take-over): renewed and watched until {@link release}. */
  claimed(taskId: string, epoch: number): void {
    this.release(taskId);
    const stopHold = this.coordinator.hold(taskId, epoch, () => this.events?.lost(taskId));
    const stopWatch = this.coordinator.watch(taskId, (lastSequence) => this.events?.changed(taskId, lastSequence));
    this.held.set(taskId, {
      epoch,
      stop() {
        stopHold();
        stopWatch();
      },
    });
  }

  /** Stops renewing and watching `taskId` (its run here ended). */
  release(taskId: string): void {
    const held = this.held.get(taskId);
    if (held === undefined) return;
    this.held.delete(taskId);
    held.stop();
  }
}
