import { A2AError } from '../errors.js';
import type { LifecycleEvent, TransitionError } from '../lifecycle/index.js';
import { reduce } from '../lifecycle/index.js';
import type { StreamResponse, Task } from '../schema/index.js';
import type { StoredEvent, TaskRecord, TaskStore } from '../store/task-store.js';
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

  constructor(
    readonly store: TaskStore,
    private readonly now: () => Date,
  ) {
    this.hub = new EventHub(store);
  }

  /** The current ISO timestamp. */
  timestamp(): string {
    return this.now().toISOString();
  }

  /** Reads a task, from the active cache when it is running. */
  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.active.get(taskId) ?? (await this.store.get(taskId));
  }

  /** Stores a new task; its log starts with the task itself (sequence 1). */
  async create(task: Task, owner: string): Promise<TaskRecord> {
    return this.lock.run(task.id, async () => {
      const events: StreamResponse[] = [{ task }];
      const result = await this.store.commit({ task, expectedVersion: 0, owner, events });
      const record: TaskRecord = { task, owner, version: result.version, lastSequence: result.lastSequence };
      this.publish(task.id, events, result.firstSequence);
      return record;
    });
  }

  /**
   * Applies one event to a task under its lock. Throws {@link TransitionFailure}
   * when the reducer refuses it; the stored task is then unchanged.
   */
  async apply(taskId: string, event: LifecycleEvent): Promise<Applied> {
    return this.lock.run(taskId, async () => {
      for (let attempt = 0; ; attempt++) {
        const current = await this.get(taskId);
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
          if (this.active.has(taskId)) this.active.set(taskId, record);
          this.publish(taskId, [wire], committed.firstSequence);
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
      const status = { ...event.statusUpdate.status, timestamp: this.timestamp() };
      return { statusUpdate: { ...event.statusUpdate, status } };
    }
    if ('message' in event && !event.timestamp) return { ...event, timestamp: this.timestamp() };
    return event;
  }

  /** The log entry of an event: updates as they are; a continuing message as the resubmitted status. */
  private wireEvent(task: Task, event: LifecycleEvent): StreamResponse {
    if ('statusUpdate' in event) return { statusUpdate: event.statusUpdate };
    if ('artifactUpdate' in event) return { artifactUpdate: event.artifactUpdate };
    return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: task.status } };
  }

  private publish(taskId: string, events: readonly StreamResponse[], firstSequence: number): void {
    const stored: StoredEvent[] = events.map((event, i) => ({ sequence: firstSequence + i, event }));
    this.hub.publish(taskId, stored);
  }
}
