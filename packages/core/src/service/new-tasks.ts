import type { Message, StreamResponse, Task } from '../schema/index.js';
import { isSettled, isTerminal } from '../schema/index.js';
import { deepFreeze } from '../clone.js';
import type { CommitResult, TaskRecord, TaskStore } from '../store/task-store.js';
import { VersionConflictError } from '../store/task-store.js';
import { landedCommit, RunRetries, type RetryingRun } from './commit-retry.js';
import type { KeyedLock } from './keyed-lock.js';
import { claimEpoch, type RunLease, type TaskLeases } from './task-leases.js';
import type { TaskOutcome, TaskOutcomes } from './task-outcomes.js';
import type { PublishedSequences } from './published-sequences.js';

/** The parts of a `TaskEngine` that new tasks share with the rest of it. */
export interface EngineParts {
  readonly store: TaskStore;
  readonly lock: KeyedLock;
  /** The records of active tasks (a held-back one at version 0). */
  readonly active: Map<string, TaskRecord>;
  readonly outcomes: TaskOutcomes;
  readonly leases: TaskLeases | undefined;
  /** How long a run's commit is retried while the store is unreachable, in ms. */
  retryWindowMs(): number;
  /** Publishes committed events to the task's subscribers (and notes them in {@link published}). */
  publish(taskId: string, events: readonly StreamResponse[], firstSequence: number): void;
  /** The newest sequence this process committed per task (recent tasks). */
  readonly published: PublishedSequences;
}

/**
 * The new tasks of a `TaskEngine`: held back in memory until their first
 * event ({@link prepare}), stored alone when they must be visible at once
 * ({@link create}, {@link persist}), or answered with a message instead
 * of being stored ({@link answer}).
 */
export class NewTasks {
  /** The runs of held-back tasks (see {@link bind}). */
  private readonly runs = new Map<string, RunLease & RetryingRun>();

  constructor(private readonly parts: EngineParts) {}

  /**
   * Binds a held-back task to the run that will emit its events: the
   * task's first commit, whenever it comes (with the first event, or alone
   * after the window), is that run's: it sets the run's epoch and is
   * retried on the run's behalf. Does nothing for a task not held back.
   */
  bind(taskId: string, run: RunLease & RetryingRun): void {
    if (this.parts.active.get(taskId)?.version === 0) this.runs.set(taskId, run);
  }

  /** Forgets the run bound to `taskId` (its run ended). */
  forget(taskId: string): void {
    this.runs.delete(taskId);
  }

  /**
   * Holds a new task back (see `TaskEngine`): in memory, active, with
   * version 0 and no log, until its first event or {@link persist}. The
   * caller chose a fresh id: the store must not have it. The task is
   * deep-frozen here, as the memory store freezes what it stores. `trace`
   * (the creating request's traceparent) is stored with it.
   */
  prepare(task: Task, owner: string, trace?: string): TaskRecord {
    // Immutable from now on, as a stored task is (the agent reads it; its first event is reduced from it).
    deepFreeze(task);
    const record: TaskRecord = { task, owner, version: 0, lastSequence: 0, trace };
    this.parts.active.set(task.id, record);
    this.parts.outcomes.hold(task.id);
    return record;
  }

  /** True while `taskId` is held back and neither its storing nor an answer has begun. */
  isHeldBack(taskId: string): boolean {
    return this.parts.outcomes.unclaimed(taskId);
  }

  /**
   * For a held-back task: resolves with its record once it is stored, or
   * with the agent's message once it is answered; rejects when storing it
   * fails. `undefined` for any other task.
   */
  whenCreated(taskId: string): Promise<TaskOutcome> | undefined {
    return this.parts.outcomes.whenCreated(taskId);
  }

  /**
   * Stores a held-back task now, alone (its log starts with the task), so
   * it is visible before its first event; does nothing when it is already
   * stored, being stored with its first event, or answered.
   */
  persist(taskId: string): Promise<void> {
    return this.parts.lock.run(taskId, async () => {
      const current = this.parts.active.get(taskId);
      if (current === undefined || current.version > 0 || !this.parts.outcomes.claim(taskId)) return;
      await this.commitNew(current, current.task, [{ task: current.task }]);
    });
  }

  /**
   * Answers a held-back task with `message` instead of storing it: the task
   * is dropped (never stored) and its waiters get the message. Resolves
   * false, changing nothing, when the task is stored or being stored.
   */
  answer(taskId: string, message: Message): Promise<boolean> {
    return this.parts.lock.run(taskId, async () => {
      const current = this.parts.active.get(taskId);
      if (current === undefined || current.version > 0 || !this.parts.outcomes.claim(taskId)) return false;
      this.parts.active.delete(taskId);
      this.runs.delete(taskId);
      this.parts.outcomes.created(taskId, { message });
      return true;
    });
  }

  /**
   * Refuses a held-back task with an error instead of storing it (see
   * `AgentContext.refuse`): the task is dropped (never stored), its creation
   * waiters (streams) reject with `error` and its settled waiters (blocking
   * sends) with `blocking`. Resolves false, changing nothing, when the task
   * is stored or being stored.
   */
  refuse(taskId: string, error: unknown, blocking: unknown = error): Promise<boolean> {
    return this.parts.lock.run(taskId, async () => {
      const current = this.parts.active.get(taskId);
      if (current === undefined || current.version > 0 || !this.parts.outcomes.claim(taskId)) return false;
      this.parts.active.delete(taskId);
      this.runs.delete(taskId);
      this.parts.outcomes.failed(taskId, error, blocking);
      return true;
    });
  }

  /**
   * Stores a new task; its log starts with the task itself (sequence 1).
   * With `activate`, the task is kept in memory from this commit on (as
   * `TaskEngine.activate` does, but with no window for another commit in between).
   * `trace` (the creating request's traceparent) is stored with it.
   */
  create(task: Task, owner: string, activate = false, trace?: string): Promise<TaskRecord> {
    return this.parts.lock.run(task.id, async () => {
      const events: StreamResponse[] = [{ task }];
      const lease = activate ? this.parts.leases?.condition(task.id, true) : undefined;
      const result = await this.parts.store.commit({ task, expectedVersion: 0, owner, events, trace, lease });
      if (lease) this.parts.leases!.claimed(task.id, claimEpoch(result));
      const record: TaskRecord = { task, owner, version: result.version, lastSequence: result.lastSequence, trace };
      if (activate) this.parts.active.set(task.id, record);
      this.parts.publish(task.id, events, result.firstSequence);
      return record;
    });
  }

  /**
   * Stores a held-back task (read as `held`) as `task`, its log starting
   * with `events`, claiming its lease for `run` (default: the run bound to
   * it), whose epoch it sets; its waiters learn the outcome. Retried like a
   * run's other commits while the store is unreachable (an attempt that
   * landed after all is recognised). The engine calls it, under the task's
   * lock, with the task's first event.
   */
  async commitNew(held: TaskRecord, task: Task, events: StreamResponse[], run = this.runs.get(task.id)): Promise<TaskRecord> {
    const taskId = task.id;
    this.runs.delete(taskId);
    const { store, leases } = this.parts;
    const lease = leases?.condition(taskId, true);
    let retries: RunRetries | undefined;
    let result: CommitResult;
    for (;;) {
      let failure: unknown;
      try {
        result = await store.commit({ task, expectedVersion: 0, owner: held.owner, events, trace: held.trace, lease });
        break;
      } catch (error) {
        failure = error;
      }
      try {
        // A creating commit that landed after all (its answer was lost): the claim it made produced version 1. Its epoch
        // was lost with the answer when the store draws epochs apart from versions: the run claims its task again, at
        // the version stored now (an earlier such claim may have landed too), unless the task ended.
        const landed = retries !== undefined && retries.unknown.length > 0 && failure instanceof VersionConflictError ? await landedCommit(store, taskId, retries.unknown) : undefined;
        if (landed) {
          const stored = landed.record;
          result = { version: 1, firstSequence: 1, lastSequence: events.length };
          if (leases && !isTerminal(stored.task.status.state)) {
            const claim = { task: stored.task, expectedVersion: stored.version, owner: stored.owner, events: [], lease: leases.claimIfFree(taskId) };
            result = { ...(await store.commit(claim)), firstSequence: 1 };
          }
          break;
        }
      } catch (readError) {
        failure = readError;
      }
      // The attempt's first log entry as JSON, made on a failure only (the task, serialised: not a cost for every new task).
      const sent = { lastSequence: 0, entry: JSON.stringify(events[0]) };
      if (await (retries ??= new RunRetries(run, this.parts.retryWindowMs())).again(failure, sent)) continue;
      this.parts.active.delete(taskId);
      this.parts.outcomes.failed(taskId, failure);
      throw failure;
    }
    if (leases) {
      leases.claimed(taskId, claimEpoch(result));
      if (run) run.epoch = claimEpoch(result);
    }
    const record: TaskRecord = { task, owner: held.owner, version: result.version, lastSequence: result.lastSequence, trace: held.trace };
    this.parts.active.set(taskId, record);
    this.parts.publish(taskId, events, result.firstSequence);
    this.parts.outcomes.created(taskId, { record });
    if (this.parts.outcomes.waiting && isSettled(task.status.state)) this.parts.outcomes.settle(taskId, { record });
    return record;
  }
}
