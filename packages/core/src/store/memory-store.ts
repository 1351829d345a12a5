import { isSettled, isTerminal, type StreamResponse, type Task } from '../schema/task.js';
import { cloneValue, deepFreeze, deepFreezeAgainst } from '../clone.js';
import { buildAppended } from '../lazy-append.js';
import { TaskListIndex } from './list-tasks.js';
import { RemovalListeners } from './removal-listeners.js';
import { positiveOption, resolveBounds, TaskBounds, type TaskBoundsOptions } from './task-bounds.js';
import {
  OwnerMismatchError,
  StoreClosedError,
  VersionConflictError,
  type CommitRequest,
  type CommitResult,
  type StoredEvent,
  type TaskListPage,
  type TaskQuery,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

/** Default of {@link MemoryTaskStoreOptions.maxTasks}. */
export const DEFAULT_MAX_TASKS = 10_000;
/**
 * Default of {@link MemoryTaskStoreOptions.maxEventsPerTask} (shared with the
 * file store): 1,000 events per task. A long stream then costs bounded
 * memory; a reader that falls further behind starts again from the task.
 */
export const DEFAULT_MAX_EVENTS_PER_TASK = 1_000;

/**
 * Options of {@link MemoryTaskStore}: its bounds (`maxTasks` default
 * 10,000, `Infinity` for no bound; `terminalTtlMs`; `now`) and events per task.
 */
export interface MemoryTaskStoreOptions extends TaskBoundsOptions {
  /**
   * Events kept per task, newest first (default 1,000; `Infinity` for no
   * bound). Older events are dropped: `readEvents` then starts at the oldest
   * event kept, so a reader whose position is older sees a gap in the
   * sequence numbers (the service then sends it the task as it is now, and
   * goes on from there). The task itself is always kept whole.
   */
  readonly maxEventsPerTask?: number;
}

interface Slot {
  task: Task;
  version: number;
  owner: string;
  lastSequence: number;
  /**
   * The newest events from index `start` on, contiguous, ending at `lastSequence` (so the first kept is
   * `lastSequence - (events.length - start) + 1`). Dropped events stay below `start` until they are as
   * many as the kept ones; then the array is copied once: dropping costs the same per event at any length.
   */
  events: StreamResponse[];
  start: number;
  /** Set once the slot holds a value that is not JSON-like: it is then copied on the way out too. */
  copied: boolean;
  /** The creating request's trace context (`CommitRequest.trace`), if it had one. */
  trace: string | undefined;
}

/**
 * A {@link TaskStore} in process memory: nothing survives the process.
 * Stored values are immutable and shared, not copied: `commit` deep-freezes
 * the task and events it is given, in place (so the caller's objects become
 * read-only), and reads hand out those frozen objects. A value that is not
 * JSON-like (a Date, Map, typed array, class instance, cycle) is deep-copied
 * on the way in and out instead (`structuredClone` semantics, see
 * {@link cloneValue}); a function or symbol rejects the commit. Either way
 * callers cannot change stored state through objects they passed or received.
 * Memory stays bounded by {@link MemoryTaskStoreOptions} (`maxTasks`,
 * `terminalTtlMs`, `maxEventsPerTask`). `close` is idempotent; every other
 * call after it rejects with {@link StoreClosedError}.
 */
export class MemoryTaskStore implements TaskStore {
  private readonly slots = new Map<string, Slot>();
  private readonly bounds: TaskBounds;
  private readonly removals = new RemovalListeners();
  private readonly index = new TaskListIndex();
  private readonly maxEvents: number;
  private closed = false;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.bounds = new TaskBounds(resolveBounds(options, DEFAULT_MAX_TASKS, 'MemoryTaskStore'), () => this.slots.size, (id) => this.remove(id));
    this.maxEvents = positiveOption(options.maxEventsPerTask, DEFAULT_MAX_EVENTS_PER_TASK, 'MemoryTaskStore', 'maxEventsPerTask');
  }

  /** Number of tasks held now (after evicting expired ones). */
  get size(): number {
    this.bounds.sweep();
    return this.slots.size;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.check();
    const slot = this.slots.get(taskId);
    if (slot === undefined) return undefined;
    const task = slot.copied ? cloneValue(slot.task) : slot.task;
    if (slot.trace !== undefined) return { task, version: slot.version, owner: slot.owner, lastSequence: slot.lastSequence, trace: slot.trace };
    return { task, version: slot.version, owner: slot.owner, lastSequence: slot.lastSequence };
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    this.check();
    const id = request.task.id;
    const slot = this.slots.get(id);
    if (slot !== undefined && slot.owner !== request.owner) throw new OwnerMismatchError(id);
    const actual = slot?.version ?? 0;
    if (actual !== request.expectedVersion) throw new VersionConflictError(id, request.expectedVersion, actual);
    // Freeze (or copy) before touching state: a value that cannot be cloned leaves the store unchanged.
    let copied = false;
    let task = request.task;
    // The stored version is deep-frozen (unless it had to be copied): what the new one shares with it needs no walk.
    // So is a new task's first event once frozen, when it is the task the new one was reduced from (a held-back task).
    let basis: Task | undefined = slot !== undefined && !slot.copied ? slot.task : undefined;
    const first = request.events[0];
    if (slot === undefined && first !== undefined && 'task' in first && first.task !== task && deepFreeze(first.task)) basis = first.task;
    if (!deepFreezeAgainst(task, basis)) {
      task = cloneValue(task);
      copied = true;
    }
    // The events share parts with the task (an update's status is the task's): frozen against it, those are not walked again.
    const shape = copied ? undefined : { task, statusUpdate: { status: task.status } };
    const events: StreamResponse[] = [];
    for (const event of request.events) {
      // A new task's first event is the task itself: keep one copy of it, not two.
      if ('task' in event && event.task === request.task) events.push(copied ? { task } : Object.freeze({ task }));
      else if (shape === undefined ? deepFreeze(event) : deepFreezeAgainst(event, shape)) events.push(event);
      else {
        copied = true;
        events.push(cloneValue(event));
      }
    }
    const next: Slot = slot ?? { task, version: 0, owner: request.owner, lastSequence: 0, events: [], start: 0, copied, trace: request.trace };
    const firstSequence = next.lastSequence + 1;
    for (const event of events) next.events.push(event);
    next.copied ||= copied;
    // Dropped events are let go at once; the array is shortened once they are as many as the kept ones.
    while (next.events.length - next.start > this.maxEvents) (next.events as unknown[])[next.start++] = undefined;
    if (next.start > 0 && next.start >= next.events.length - next.start) {
      next.events = next.events.slice(next.start);
      next.start = 0;
    }
    next.task = task;
    // A settled task's streamed artifacts are built now, once: the chain of versions they were appended through is let go.
    if (!copied && isSettled(task.status.state)) buildAppended(task.artifacts);
    next.version += 1;
    next.lastSequence += events.length;
    if (slot === undefined) this.slots.set(id, next);
    this.index.set(next.owner, task);
    this.bounds.committed(id, isTerminal(task.status.state));
    return { version: next.version, firstSequence, lastSequence: next.lastSequence };
  }

  async list(query: TaskQuery): Promise<TaskListPage> {
    this.check();
    let copied = false;
    const load = (id: string) => {
      const slot = this.slots.get(id)!;
      copied ||= slot.copied;
      return slot.task;
    };
    const page = this.index.query(query, load, (id) => this.slots.get(id)!.lastSequence);
    // Projected tasks are new objects sharing frozen parts; freeze their top level too.
    return { ...page, tasks: copied ? cloneValue(page.tasks) : page.tasks.map((task) => Object.freeze(task)) };
  }

  async delete(taskId: string): Promise<boolean> {
    this.check();
    return this.remove(taskId);
  }

  async readEvents(taskId: string, afterSequence: number, limit = Infinity): Promise<StoredEvent[]> {
    this.check();
    const slot = this.slots.get(taskId);
    if (slot === undefined || limit <= 0) return [];
    const first = slot.lastSequence - (slot.events.length - slot.start) + 1;
    const start = slot.start + Math.max(0, afterSequence + 1 - first);
    const end = Math.min(slot.events.length, start + limit);
    const events: StoredEvent[] = [];
    for (let i = start; i < end; i++) events.push({ sequence: first + i - slot.start, event: slot.events[i]! });
    return slot.copied ? cloneValue(events) : events;
  }

  async unsettled(): Promise<string[]> {
    this.check();
    return this.index.unsettled();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.slots.clear();
    this.bounds.clear();
    this.index.load([]);
  }

  private check(): void {
    if (this.closed) throw new StoreClosedError();
    this.bounds.sweep();
  }

  onRemoved(listener: (taskId: string) => void): () => void {
    return this.removals.add(listener);
  }

  private remove(taskId: string): boolean {
    this.bounds.forget(taskId);
    this.index.delete(taskId);
    if (!this.slots.delete(taskId)) return false;
    this.removals.emit(taskId);
    return true;
  }
}

/** Creates a {@link MemoryTaskStore}; the same as `new MemoryTaskStore(options)`. */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
  return new MemoryTaskStore(options);
}
