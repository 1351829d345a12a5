import { A2AError } from '../errors.js';
import type { LifecycleEvent, TransitionError } from '../lifecycle/index.js';
import type { StreamResponse } from '../schema/index.js';
import { isSettled } from '../schema/index.js';
import type { StoredEvent, TaskHead, TaskRecord, TaskStore } from '../store/task-store.js';
import { EventHub } from './event-hub.js';
import { KeyedLock } from './keyed-lock.js';
import { NewTasks, type EngineParts } from './new-tasks.js';
import { claimOwedRun } from './owed-run.js';
import type { Logger } from './agent-run.js';
import type { RunLease, TaskLeases } from './task-leases.js';
import type { LeaseLostError } from './coordination.js';
import { RUN_COMMIT_RETRY_MS, type RetryingRun } from './commit-retry.js';
import { EventCommits } from './event-commits.js';
import { EventGroup } from './event-group.js';
import type { TaskOutcome } from './task-outcomes.js';
import { TaskOutcomes } from './task-outcomes.js';
import { StatusClock } from './status-clock.js';
import { PublishedSequences, TAKE_OVER_SEQUENCE_GAP } from './published-sequences.js';
import { TransitionFailure } from './transition-failure.js';

export { TransitionFailure };

/** A refused event's error (one function for every commit, not a closure per commit). */
const refusal = (error: TransitionError): TransitionFailure => new TransitionFailure(error);

/** The result of applying one event: the record after it, and whether it was a duplicate. */
export interface Applied {
  readonly record: TaskRecord;
  readonly duplicate: boolean;
}

/**
 * The one place task state changes: every change is reduced, committed with
 * its event (optimistic version check, retried on conflict) and published to
 * subscribers, serialised per task. Keeps the records of active tasks in
 * memory so a run does not read the store for each event.
 *
 * A new task can be held back (`newTasks.prepare`): it lives in memory
 * only (version 0, invisible to {@link get}) until its first event, and is
 * then stored together with that event in one commit (its log still starts
 * with the task as sequence 1). `newTasks.persist` stores it alone first
 * when it must be visible at once; `newTasks.answer` drops it when the agent
 * answers with a message instead.
 */
export class TaskEngine {
  readonly hub: EventHub;
  private readonly lock = new KeyedLock();
  private readonly active = new Map<string, TaskRecord>();
  private readonly published = new PublishedSequences();
  private readonly outcomes = new TaskOutcomes();
  /** Per task, the events of its run waiting to go together in its next commit (see {@link apply}). */
  private readonly groups = new Map<string, EventGroup<Applied>>();
  private readonly clock: StatusClock;
  /** New tasks: held back, stored at once, stored later, or answered instead (see the class comment). */
  readonly newTasks: NewTasks;
  private readonly parts: EngineParts;
  private readonly commits: EventCommits;

  /** `now` is the clock (default: the system clock, formatted once per millisecond). */
  constructor(
    readonly store: TaskStore,
    now?: () => Date,
    /** With several processes on the store: the leases of the runs here (commits claim and carry them). */
    private readonly leases?: TaskLeases,
    logger?: Logger,
    /** How long a run's commit is retried while the store is unreachable (see `TaskServiceOptions.storeRetryMs`). */
    private readonly retryMs = RUN_COMMIT_RETRY_MS,
  ) {
    this.hub = new EventHub(store, leases?.coordinator, logger);
    this.clock = new StatusClock(now);
    this.parts = {
      store,
      lock: this.lock,
      active: this.active,
      outcomes: this.outcomes,
      leases,
      retryWindowMs: () => this.retryWindowMs,
      publish: (id, events, first) => this.publish(id, events, first),
      published: this.published,
    };
    this.newTasks = new NewTasks(this.parts);
    this.commits = new EventCommits(this.parts, this.clock, this.newTasks);
  }

  /** The current ISO timestamp. */
  timestamp(): string {
    return this.clock.timestamp();
  }

  /**
   * Reads a stored task, from the active cache when it is running (a held-back task is not stored yet: undefined).
   * With several processes on the store, a stored task is always read from the store: another process may have
   * changed it (canceled it, say) before this one heard of it.
   */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    const known = this.active.get(taskId);
    if (known !== undefined && this.cached(known)) return known.version > 0 ? known : undefined;
    return this.store.get(taskId);
  }

  /**
   * What a resume needs of a stored task, at the cost of its head alone: the
   * record {@link get} would give when it is in memory, else the store's
   * {@link TaskStore.head} (the task itself not read), else the stored record.
   */
  async head(taskId: string): Promise<TaskRecord | TaskHead | undefined> {
    const known = this.active.get(taskId);
    if (this.store.head === undefined || (known !== undefined && this.cached(known))) return this.get(taskId);
    return this.store.head(taskId);
  }

  /** True when a read of `known`'s task is answered from memory: it is held back, or this process is alone on the store. */
  private cached(known: TaskRecord): boolean {
    return known.version === 0 || this.leases === undefined;
  }

  /**
   * Notes that a client of this process was sent `taskId`'s event at
   * `sequence` (a stream): a later commit here onto a stored log that no
   * longer reaches it goes after it (see `TaskStore.commitFrom`).
   */
  sent(taskId: string, sequence: number): void {
    this.published.note(taskId, sequence);
  }

  /**
   * This process has just taken `taskId`'s lease over (from a gone process,
   * or back from itself when no run here holds it): where the store can
   * leave a gap in a log (`TaskStore.commitFrom`), the next commit here goes
   * {@link TAKE_OVER_SEQUENCE_GAP} past the stored last sequence, the stored
   * task first, as after events this process published (commits a failover
   * lost may carry numbers clients saw: the gone holder's, another process's
   * cancel, a take-over whose answer was lost). Nothing for a task not
   * stored, or a store without gaps.
   */
  async takenOver(taskId: string): Promise<void> {
    if (this.store.commitFrom === undefined) return;
    const record = await this.store.get(taskId);
    if (record !== undefined && record.version > 0) this.published.note(taskId, record.lastSequence + TAKE_OVER_SEQUENCE_GAP);
  }

  /** The in-memory record of a running task, if it is one (no store read; version 0 while held back). */
  peek(taskId: string): TaskRecord | undefined {
    return this.active.get(taskId);
  }

  /**
   * The run of `taskId` ended, but its task could not be settled because the
   * store failed (its database went away, say): the callers waiting for the
   * task to settle fail with `error` instead of waiting for ever.
   */
  settleFailed(taskId: string, error: unknown): void {
    this.outcomes.abandon(taskId, error);
  }

  /**
   * Resolves with the outcome of the first commit, from now on, that leaves
   * `taskId` settled (terminal or interrupted), or with the agent's message
   * when it answers a held-back task with one, or with `undefined` once
   * `signal` aborts; rejects when storing a held-back task fails. Register
   * before starting the work it waits for: a commit made earlier is seen
   * only while the task is active (then a task already settled resolves at
   * once). Cheaper than a hub subscription for a caller that needs only the
   * outcome (a blocking SendMessage).
   */
  whenSettled(taskId: string, signal?: AbortSignal): Promise<TaskOutcome | undefined> {
    const known = this.active.get(taskId);
    if (known !== undefined && isSettled(known.task.status.state)) return Promise.resolve({ record: known });
    return this.outcomes.whenSettled(taskId, signal);
  }

  /**
   * Applies one event to a task under its lock. Throws {@link TransitionFailure}
   * when the reducer refuses it; the stored task is then unchanged. A
   * status or artifact update event object becomes the log entry itself
   * (frozen by the memory store): do not reuse it. With
   * `activate`, a task the event changed is kept in memory from this commit
   * on (see `NewTasks.create`). The event is stamped once: every attempt
   * to commit it is the same log entry. `run` is the agent run emitting the
   * event: its commits are fenced by its own epoch, set when its task was
   * stored (with several processes on the store, a run without one is
   * refused with {@link LeaseLostError}, never sent unfenced), and retried
   * while the store is unreachable (an attempt that landed after all is
   * recognised, whichever it was). A run's events applied while its
   * previous commit is in flight wait for it together and go in one commit
   * (in order, each reduced onto what the ones before it left, each
   * settling with its own outcome; a failed commit fails them all). Without
   * `run`, the commit carries the lease held here now, if any (none when
   * it cancels the task: a cancel stands whoever holds the lease), and is
   * not retried. With `ifGeneration` (A2A 1.1's `ifGenerationMatch`; for an
   * event of no run), the event is committed only onto the task at that
   * generation: checked against the record each attempt reduces onto, whose
   * version the store checks in the same commit (a conflict reads the task
   * again and checks again), so a concurrent commit that moved the task
   * first makes it TaskGenerationMismatch, and nothing is stored.
   */
  apply(taskId: string, event: LifecycleEvent, activate = false, run?: RunLease & RetryingRun, ifGeneration?: number): Promise<Applied> {
    const grouped = run !== undefined && !activate && ifGeneration === undefined;
    if (grouped) {
      // The run's previous commit is in flight: this event joins the ones waiting to go in its next commit.
      const open = this.groups.get(taskId);
      if (open !== undefined && open.run === run) return open.add(event);
    }
    const group = new EventGroup<Applied>(event, run ?? this);
    // Another's commit queued behind the open group (a cancel, say) closes it: no later event of the run overtakes it.
    if (grouped) this.groups.set(taskId, group);
    else this.groups.delete(taskId);
    return this.lock.run(taskId, async () => {
      // Closed once its commit starts: an event emitted from now on waits for the next one.
      if (this.groups.get(taskId) === group) this.groups.delete(taskId);
      let outcomes;
      try {
        outcomes = await this.commits.commit(taskId, group.events, activate, run, ifGeneration);
      } catch (error) {
        group.fail(error);
        throw error;
      }
      const first = group.settle(outcomes, refusal);
      if ('refused' in first) throw new TransitionFailure(first.refused);
      return first;
    });
  }

  /** How long a run's commit is retried while the store is unreachable: the lease's time to live in a cluster. */
  get retryWindowMs(): number {
    return this.leases ? this.leases.coordinator.leaseTtlMs : this.retryMs;
  }

  /**
   * Claims a stored task for the run its last message is owed (see
   * {@link claimOwedRun}): a client sent `messageId` again because the
   * answer to its first send was lost after the commit landed. Resolves the
   * claimed record (the run's epoch is the lease held here), or undefined when
   * someone runs the task or it needs no run.
   */
  claimOwedRun(taskId: string, messageId: string, idle: () => boolean): Promise<TaskRecord | undefined> {
    return claimOwedRun(this.parts, taskId, messageId, idle);
  }

  /**
   * Takes in what another process committed to an active task (a cancel,
   * say) once `lastSequence` was announced: the in-memory record becomes the
   * stored one, and the task's waiters resolve when it is settled. Resolves
   * the stored record when it was newer than the one in memory.
   */
  refresh(taskId: string, lastSequence: number): Promise<TaskRecord | undefined> {
    return this.lock.run(taskId, async () => {
      const known = this.active.get(taskId);
      if (known === undefined || known.version === 0 || lastSequence <= known.lastSequence) return undefined;
      const stored = await this.store.get(taskId);
      if (stored === undefined || stored.version <= known.version || !this.active.has(taskId)) return undefined;
      this.active.set(taskId, stored);
      if (this.outcomes.waiting && isSettled(stored.task.status.state)) this.outcomes.settle(taskId, { record: stored });
      return stored;
    });
  }

  /** Keeps `record` in memory while its task runs (until {@link deactivate}). */
  activate(record: TaskRecord): void {
    this.active.set(record.task.id, record);
  }

  /**
   * True when a run claimed at `epoch` no longer holds `taskId`'s lease here
   * (with several processes on the store): a renewal found it lost, or a
   * newer claim superseded it, before the run started. Always false for a
   * process alone on its store.
   */
  leaseGone(taskId: string, epoch: number): boolean {
    return this.leases !== undefined && this.leases.epochOf(taskId) !== epoch;
  }

  /** The epoch of the lease this process holds on `taskId` now (with several processes on the store), if any. */
  leaseEpoch(taskId: string): number | undefined {
    return this.leases?.epochOf(taskId);
  }

  /**
   * Drops a task from the in-memory cache when its current run ended (a
   * held-back task is dropped unstored: its waiters fail) and releases that
   * run's lease (`epoch`: a newer run's lease is never released).
   */
  deactivate(taskId: string, epoch?: number): void {
    const known = this.active.get(taskId);
    this.active.delete(taskId);
    this.newTasks.forget(taskId);
    this.leases?.release(taskId, epoch);
    if (known?.version === 0) this.outcomes.failed(taskId, new A2AError('Internal', `Task ${taskId} ended before it was stored`, { taskId }));
  }

  private publish(taskId: string, events: readonly StreamResponse[], firstSequence: number): void {
    this.published.note(taskId, firstSequence + events.length - 1, firstSequence === 1);
    if (!this.hub.wants(taskId)) return;
    const stored: StoredEvent[] = [];
    for (let i = 0; i < events.length; i++) stored.push({ sequence: firstSequence + i, event: events[i]! });
    this.hub.publish(taskId, stored);
  }
}
