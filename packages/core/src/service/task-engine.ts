import { A2AError } from '../errors.js';
import type { LifecycleEvent, TransitionError } from '../lifecycle/index.js';
import { reduce } from '../lifecycle/index.js';
import type { StreamResponse, Task } from '../schema/index.js';
import { isSettled } from '../schema/index.js';
import type { StoredEvent, TaskRecord, TaskStore } from '../store/task-store.js';
import { copyWith } from '../store/clone.js';
import { VersionConflictError } from '../store/task-store.js';
import { EventHub } from './event-hub.js';
import { KeyedLock } from './keyed-lock.js';

/** The reducer refused an event; `error` says why. */
export class TransitionFailure extends Error {
  override readonly name = 'TransitionFailure';
  constructor(readonly error: TransitionError) {
    super(error.message);
  }
}

/** The result of applying one event: the record after it, and whether it was a duplicate. */
export interface Applied {
  readonly record: TaskRecord;
  readonly duplicate: boolean;
}

const MAX_CONFLICT_RETRIES = 8;

/** Someone waiting for a task to settle (see {@link TaskEngine.whenSettled}). */
type SettledWaiter = (record: TaskRecord | undefined) => void;

/**
 * The one place task state changes: every change is reduced, committed with
 * its event (optimistic version check, retried on conflict) and published to
 * subscribers, serialised per task. Keeps the records of active tasks in
 * memory so a run does not read the store for each event.
 */
export class TaskEngine {
  readonly hub: EventHub;
  private readonly lock = new KeyedLock();
  private readonly active = new Map<string, TaskRecord>();
  private readonly waiters = new Map<string, SettledWaiter[]>();
  private lastMs = NaN;
  private lastIso = '';

  /** `now` is the clock (default: the system clock, formatted once per millisecond). */
  constructor(
    readonly store: TaskStore,
    private readonly now?: () => Date,
  ) {
    this.hub = new EventHub(store);
  }

  /** The current ISO timestamp. */
  timestamp(): string {
    if (this.now) return this.now().toISOString();
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** Reads a task, from the active cache when it is running. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.active.get(taskId) ?? (await this.store.get(taskId));
  }

  /** The in-memory record of a running task, if it is one (no store read). */
  peek(taskId: string): TaskRecord | undefined {
    return this.active.get(taskId);
  }

  /**
   * Resolves with the record of the first commit, from now on, that leaves
   * `taskId` settled (terminal or interrupted), or with `undefined` once
   * `signal` aborts. Register before starting the work it waits for: a
   * commit made earlier is seen only while the task is active (then a task
   * already settled resolves at once). Cheaper than a hub subscription for a
   * caller that needs only the outcome (a blocking SendMessage).
   */
  whenSettled(taskId: string, signal?: AbortSignal): Promise<TaskRecord | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    const known = this.active.get(taskId);
    if (known !== undefined && isSettled(known.task.status.state)) return Promise.resolve(known);
    return new Promise((resolve) => {
      let list = this.waiters.get(taskId);
      if (list === undefined) this.waiters.set(taskId, (list = []));
      if (signal === undefined) {
        list.push(resolve);
        return;
      }
      const onAbort = (): void => {
        const current = this.waiters.get(taskId);
        const at = current?.indexOf(waiter) ?? -1;
        if (at >= 0) current!.splice(at, 1);
        if (current?.length === 0) this.waiters.delete(taskId);
        resolve(undefined);
      };
      const waiter: SettledWaiter = (record) => {
        signal.removeEventListener('abort', onAbort);
        resolve(record);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      list.push(waiter);
    });
  }

  /**
   * Stores a new task; its log starts with the task itself (sequence 1).
   * With `activate`, the task is kept in memory from this commit on (as
   * {@link activate} does, but with no window for another commit in between).
   */
  create(task: Task, owner: string, activate = false): Promise<TaskRecord> {
    return this.lock.run(task.id, async () => {
      const events: StreamResponse[] = [{ task }];
      const result = await this.store.commit({ task, expectedVersion: 0, owner, events });
      const record: TaskRecord = { task, owner, version: result.version, lastSequence: result.lastSequence };
      if (activate) this.active.set(task.id, record);
      this.publish(task.id, events, result.firstSequence);
      return record;
    });
  }

  /**
   * Applies one event to a task under its lock. Throws {@link TransitionFailure}
   * when the reducer refuses it; the stored task is then unchanged. A
   * status or artifact update event object becomes the log entry itself
   * (frozen by the memory store): do not reuse it. With
   * `activate`, a task the event changed is kept in memory from this commit
   * on (see {@link create}).
   */
  apply(taskId: string, event: LifecycleEvent, activate = false): Promise<Applied> {
    return this.lock.run(taskId, async () => {
      for (let attempt = 0; ; attempt++) {
        const current = this.active.get(taskId) ?? (await this.store.get(taskId));
        if (!current) throw new A2AError('TaskNotFound', `Task ${taskId} no longer exists`, { taskId });
        const stamped = this.stamp(event);
        const result = reduce(current.task, stamped);
        if (!result.ok) throw new TransitionFailure(result.error);
        if (result.duplicate) return { record: current, duplicate: true };
        const wire = this.wireEvent(result.task, stamped);
        try {
          const committed = await this.store.commit({
            task: result.task,
            expectedVersion: current.version,
            owner: current.owner,
            events: [wire],
          });
          const record: TaskRecord = {
            task: result.task,
            owner: current.owner,
            version: committed.version,
            lastSequence: committed.lastSequence,
          };
          if (activate || this.active.has(taskId)) this.active.set(taskId, record);
          this.publish(taskId, [wire], committed.firstSequence);
          if (this.waiters.size > 0 && isSettled(record.task.status.state)) this.settle(taskId, record);
          return { record, duplicate: false };
        } catch (error) {
          if (!(error instanceof VersionConflictError) || attempt >= MAX_CONFLICT_RETRIES) throw error;
          this.active.delete(taskId);
        }
      }
    });
  }

  /** Keeps `record` in memory while its task runs (until {@link deactivate}). */
  activate(record: TaskRecord): void {
    this.active.set(record.task.id, record);
  }

  /** Drops a task from the in-memory cache. */
  deactivate(taskId: string): void {
    this.active.delete(taskId);
  }

  private stamp(event: LifecycleEvent): LifecycleEvent {
    if ('statusUpdate' in event && !event.statusUpdate.status.timestamp) {
      const status = copyWith(event.statusUpdate.status, { timestamp: this.timestamp() });
      return { statusUpdate: copyWith(event.statusUpdate, { status }) };
    }
    if ('message' in event && !event.timestamp) return { message: event.message, timestamp: this.timestamp() };
    return event;
  }

  /** The log entry of an event: updates as they are; a continuing message as the resubmitted status. */
  private wireEvent(task: Task, event: LifecycleEvent): StreamResponse {
    // An update event already has the stream response's shape ({statusUpdate} / {artifactUpdate}): log it as it is.
    if ('statusUpdate' in event || 'artifactUpdate' in event) return event;
    return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status } };
  }

  private settle(taskId: string, record: TaskRecord): void {
    const list = this.waiters.get(taskId);
    if (list === undefined) return;
    this.waiters.delete(taskId);
    for (const waiter of list) waiter(record);
  }

  private publish(taskId: string, events: readonly StreamResponse[], firstSequence: number): void {
    if (!this.hub.wants(taskId)) return;
    const stored: StoredEvent[] = [];
    for (let i = 0; i < events.length; i++) stored.push({ sequence: firstSequence + i, event: events[i]! });
    this.hub.publish(taskId, stored);
  }
}
