import type { LeaseCondition } from '../store/lease-condition.js';

export type { LeaseCondition };

/**
 * A commit carrying a `hold` {@link LeaseCondition} was refused because the
 * task's lease is no longer the writer's: another process canceled or
 * settled the task, or took it over after the writer's lease expired. The
 * write was not applied; the writer must stop its run (never retry it).
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  constructor(readonly taskId: string) {
    super(`This process no longer holds the lease of task ${taskId} (another process settled it or took it over); its run stops here`);
  }
}

/**
 * What a {@link TaskCoordinator} calls back into the service it coordinates.
 */
export interface CoordinatorHost {
  /**
   * Settles a task whose lease this process has just taken over because
   * its holder stopped (the lease expired, or the holder's process is gone),
   * for the `takeovers`-th time: the service runs its agent again when the
   * coordinator allows that many re-runs (`rerunOrphans`), and otherwise
   * fails it with an agent message saying the agent's process stopped,
   * committing under the lease `{ holder: processId, epoch }`. Resolves when
   * done (a re-run, once started); rejections are logged by the coordinator
   * and the task is found again by a later sweep. The service's first
   * commit goes after a gap in the task's log, where the store can leave
   * one (see `TAKE_OVER_SEQUENCE_GAP`), whoever held the lease, this
   * process included: a database failover may have lost commits whose
   * numbers clients saw (the gone holder's, another process's cancel, or
   * a take-over whose answer was lost).
   */
  settleOrphan(taskId: string, epoch: number, takeovers: number): Promise<void>;
  /**
   * Another process asked (see {@link TaskCoordinator.requestAbort}) that the
   * run of `taskId` in this process, if there is one, be canceled with a
   * grace of `graceMs`: its signal aborts, the agent gets up to `graceMs` to
   * end the task itself, and what it left unsettled is then canceled here.
   * Resolves when done; a task not running here is left alone. Rejections
   * are logged by the coordinator.
   */
  abortRun?(taskId: string, graceMs: number): Promise<void>;
}

/**
 * What the service needs when several processes share one store: wake-ups
 * for commits made elsewhere, task leases, and the tasks whose holder
 * stopped. The in-process coordinator ({@link createInProcessCoordinator},
 * the default) does nothing: one process sees all its own commits already.
 * An engine package implements the shared one (`@taskwire/postgres`:
 * LISTEN/NOTIFY, leases with a fencing epoch in the task row).
 *
 * Contract:
 * - `watch` calls `onCommit(lastSequence)` after another process may have
 *   committed events of `taskId` (the log's last sequence as the
 *   coordinator learned it). Calls may be late, coalesced or repeated, and
 *   may report this process's own commits; a periodic catch-up makes a lost
 *   wake-up a delay, never a loss. Callers compare with what they have and
 *   read the store for the rest. The function returned stops the calls.
 * - `hold` keeps the lease of a run this process claimed (at `epoch`)
 *   renewed until the function it returns is called; when a renewal finds
 *   the lease gone, `onLost` is called once (the run must stop).
 * - `attach` starts the periodic sweep for tasks whose lease holder
 *   stopped: for each, the coordinator takes the lease over (exactly one
 *   process wins) and calls {@link CoordinatorHost.settleOrphan}.
 * - `recover` runs one sweep now, also taking over the submitted or working
 *   tasks that have no lease at all (left by a process that took none), and
 *   resolves the ids it handed to `settleOrphan` (see `TaskService.recover`).
 *   It needs `attach` first.
 * - `close` stops everything (renewals, wake-ups, the sweep); later calls do
 *   nothing. Leases still held are left to expire.
 */
export interface TaskCoordinator {
  /** True when other processes share the store (commits then carry a {@link LeaseCondition}). */
  readonly shared: boolean;
  /** This process's name as a lease holder (unique among live processes). */
  readonly processId: string;
  /** How long a lease lasts without renewal, in ms. */
  readonly leaseTtlMs: number;
  /**
   * How many times a task whose process stopped is run again (its agent
   * called anew with the task's last user message) before it fails instead.
   * Unset or 0: never, unless asked for: a re-run may repeat what the agent
   * already did (sent an email, charged a card).
   */
  readonly rerunOrphans?: number;
  watch(taskId: string, onCommit: (lastSequence: number) => void): () => void;
  hold(taskId: string, epoch: number, onLost: () => void): () => void;
  attach(host: CoordinatorHost): void;
  recover(): Promise<string[]>;
  /**
   * Asks the live process that holds the lease of `taskId` (one other than
   * this one) to abort its run with a grace of `graceMs` (see
   * {@link CoordinatorHost.abortRun}); nothing is committed by the asking.
   * Resolves true when such a process was asked, false when there is none
   * (the task is not running anywhere, its holder is this process or gone):
   * the caller then cancels at once. The request may be lost or ignored (a
   * process of an older release ignores it): a caller waits for the task
   * to settle for a bounded time only. Optional: without it a cancel made
   * here commits at once.
   */
  requestAbort?(taskId: string, graceMs: number): Promise<boolean>;
  /**
   * The process is draining (it stops soon): from now on it takes no task
   * over and re-runs nothing; it keeps renewing the leases of its own runs
   * until {@link close}. Optional; later calls do nothing.
   */
  drain?(): void;
  close(): Promise<void>;
}

const nothing = (): void => {};

/**
 * The coordinator of a service that is alone on its store (today's
 * behaviour, at no cost): no wake-ups, no leases, no sweep; `recover` finds
 * nothing (a single process settles what it left running from the store's
 * `unsettled()` instead).
 */
export function createInProcessCoordinator(): TaskCoordinator {
  return {
    shared: false,
    processId: 'local',
    leaseTtlMs: Infinity,
    rerunOrphans: 0,
    watch: () => nothing,
    hold: () => nothing,
    attach: nothing,
    recover: async () => [],
    close: async () => {},
  };
}
