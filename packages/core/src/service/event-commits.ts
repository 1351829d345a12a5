import { A2AError } from '../errors.js';
import type { LifecycleEvent } from '../lifecycle/index.js';
import type { TaskRecord } from '../store/task-store.js';
import { VersionConflictError } from '../store/task-store.js';
import { isTerminal, type StreamResponse } from '../schema/index.js';
import { landedCommit, RunRetries, type RetryingRun, type UnknownCommit } from './commit-retry.js';
import type { LeaseCondition } from './coordination.js';
import { LeaseLostError } from './coordination.js';
import { requireGeneration } from './generation.js';
import { groupOutcomes, reduceGroup, type ReducedGroup, type StepOutcome } from './event-group.js';
import { settleAfterLoss, StoreWentBackError } from './lost-commits.js';
import type { EngineParts, NewTasks } from './new-tasks.js';
import type { StatusClock } from './status-clock.js';
import type { Applied } from './task-engine.js';
import { claimEpoch, type RunLease } from './task-leases.js';

const MAX_CONFLICT_RETRIES = 8;

/**
 * How a `TaskEngine` commits events to a task, under the task's lock:
 * reduced in order, stored in one commit (optimistic version check,
 * retried on conflict; a run's retried while the store is unreachable),
 * then published to subscribers and waiters.
 */
export class EventCommits {
  constructor(
    private readonly parts: EngineParts,
    private readonly clock: StatusClock,
    private readonly newTasks: NewTasks,
  ) {}

  /**
   * Commits `events` (under their task's lock) in one commit, reduced in
   * order (see {@link reduceGroup}); resolves each one's outcome, or
   * rejects when the commit failed (then none of them is stored). With
   * `ifGeneration`, every attempt first requires the record it reduces onto
   * to be at that generation (TaskGenerationMismatch otherwise): the store's
   * version check makes that record the one the commit replaces.
   */
  async commit(
    taskId: string,
    events: readonly LifecycleEvent[],
    activate: boolean,
    run: (RunLease & RetryingRun) | undefined,
    ifGeneration?: number,
  ): Promise<StepOutcome<Applied>[]> {
    // Stamped once: every attempt of an event is the same log entry, so a retry recognises an attempt that landed.
    // (A loop, and no closures in this function: each would cost the hot path an allocation per commit.)
    const stamped: LifecycleEvent[] = [];
    for (const event of events) stamped.push(this.clock.stamp(event));
    // Made on the first failure only (`retriesOf`): the hot path allocates nothing for it.
    let retries: RunRetries | undefined;
    /** The group each attempt of unknown outcome sent, and the record it was reduced onto (made on the first failure too). */
    let attempts: Map<UnknownCommit, { readonly group: ReducedGroup; readonly before: TaskRecord }> | undefined;
    for (let attempt = 0; ; ) {
      let current: TaskRecord | undefined;
      try {
        current = this.parts.active.get(taskId) ?? (await this.parts.store.get(taskId));
      } catch (error) {
        if (await (retries ??= this.retriesOf(run)).again(error)) continue;
        throw error;
      }
      if (!current) throw new A2AError('TaskNotFound', `Task ${taskId} no longer exists`, { taskId });
      if (ifGeneration !== undefined) requireGeneration(current, ifGeneration);
      const group = reduceGroup(current.task, stamped);
      // Ended meanwhile by another process (a cancel): whoever waits for the task learns of it now.
      if (this.parts.outcomes.waiting && isTerminal(current.task.status.state) && group.steps.some((step) => step.kind === 'refused')) {
        this.parts.outcomes.settle(taskId, { record: current });
      }
      if (group.entries.length === 0) return groupOutcomes(group, current, current, current.lastSequence + 1).outcomes;
      if (current.version === 0) {
        // A held-back task: stored now, with these first events, in one commit.
        this.parts.outcomes.claim(taskId);
        const record = await this.newTasks.commitNew(current, group.task, [{ task: current.task }, ...group.entries], run);
        return groupOutcomes(group, current, record, record.lastSequence - group.entries.length + 1).outcomes;
      }
      const lease = this.condition(taskId, activate, run, group.task.status.state === 'TASK_STATE_CANCELED');
      // This process published events the stored task lacks (a failover lost them): the commit goes after them, the
      // stored task first (as a reader that missed events gets it), so no number a client saw is used again.
      const published = this.parts.published.of(taskId);
      const gap = published !== undefined && published > current.lastSequence && this.parts.store.commitFrom !== undefined ? { task: current.task } : undefined;
      try {
        const request = {
          task: group.task,
          expectedVersion: current.version,
          owner: current.owner,
          events: gap === undefined ? group.entries : [gap, ...group.entries],
          lease,
          // The logged updates are the reduced events themselves: a store may keep them alone (see CommitRequest.appendOnly).
          appendOnly: group.appendOnly,
        };
        const committed = gap === undefined ? await this.parts.store.commit(request) : await this.parts.store.commitFrom!(request, published! + 1);
        if (activate && this.parts.leases) this.parts.leases.claimed(taskId, claimEpoch(committed));
        const record: TaskRecord = { task: group.task, owner: current.owner, version: committed.version, lastSequence: committed.lastSequence, trace: current.trace };
        return this.accepted(taskId, group, current, record, committed.firstSequence, activate, gap);
      } catch (error) {
        if (retries !== undefined && retries.unknown.length > 0 && error instanceof VersionConflictError) {
          // An earlier attempt whose connection died may have landed after all: then it is these events' commit.
          let landed;
          try {
            landed = await landedCommit(this.parts.store, taskId, retries.unknown);
          } catch (readError) {
            if (await (retries ??= this.retriesOf(run)).again(readError)) continue;
            throw readError;
          }
          const sent = landed && attempts?.get(landed.attempt);
          if (landed && sent) return this.accepted(taskId, sent.group, sent.before, landed.record, landed.attempt.lastSequence + 1, activate);
        }
        // Behind what was committed here: never reduced again onto the older record (its sequence numbers were handed
        // out). The task fails after what was published here, leaving the lost numbers unused, where the store can.
        if (error instanceof VersionConflictError && error.actualVersion > 0 && error.actualVersion < current.version) {
          await settleAfterLoss(this.parts, this.clock, current, error.actualVersion, lease, published);
          throw new StoreWentBackError(taskId, current.version, error.actualVersion);
        }
        // Retried on the same version: if the lost attempt landed after all, the conflict above finds it.
        const sent: UnknownCommit = { lastSequence: current.lastSequence, entry: JSON.stringify(group.entries[0]) };
        (attempts ??= new Map()).set(sent, { group, before: current });
        if (await (retries ??= this.retriesOf(run)).again(error, sent)) continue;
        if (!(error instanceof VersionConflictError) || ++attempt > MAX_CONFLICT_RETRIES) throw error;
        this.parts.active.delete(taskId);
      }
    }
  }

  /** The retries of a commit of `run` once it failed (see {@link RunRetries}). */
  private retriesOf(run: RetryingRun | undefined): RunRetries {
    return new RunRetries(run, this.parts.retryWindowMs());
  }

  /**
   * The lease condition of a commit to a stored task (with several
   * processes on the store): a claim when it starts a run; the hold of
   * `run`'s own epoch for a run's commit (a run without one is refused with
   * {@link LeaseLostError}: it is never sent unfenced); for a commit of no
   * run (a recovery), the lease held here now, if any; none for a commit of
   * no run that `cancels` its task: a cancel is the caller's and stands
   * whoever holds the lease, as it does from any other process (a lease held
   * here that another process has taken over would refuse it).
   */
  private condition(taskId: string, claim: boolean, run: RunLease | undefined, cancels: boolean): LeaseCondition | undefined {
    if (this.parts.leases === undefined) return undefined;
    if (run === undefined && !claim && cancels) return undefined;
    if (claim || run === undefined) return this.parts.leases.condition(taskId, claim);
    if (run.epoch === undefined) throw new LeaseLostError(taskId);
    return this.parts.leases.condition(taskId, false, run.epoch);
  }

  /**
   * A committed group of events (`stored` is the record after it, its first
   * entry at `firstSequence`, after `head` when the commit logged one: the
   * task after a gap): the record becomes the active one (when `activate`
   * or already active), subscribers and waiters hear of it. Resolves each
   * event's outcome.
   */
  private accepted(taskId: string, group: ReducedGroup, before: TaskRecord, stored: TaskRecord, firstSequence: number, activate: boolean, head?: StreamResponse): StepOutcome<Applied>[] {
    if (activate || this.parts.active.has(taskId)) this.parts.active.set(taskId, stored);
    this.parts.publish(taskId, head === undefined ? group.entries : [head, ...group.entries], firstSequence);
    const { outcomes, settled } = groupOutcomes(group, before, stored, head === undefined ? firstSequence : firstSequence + 1);
    if (this.parts.outcomes.waiting && settled !== undefined) this.parts.outcomes.settle(taskId, { record: settled });
    return outcomes;
  }
}
