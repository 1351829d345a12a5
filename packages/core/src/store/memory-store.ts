import type { ListTasksResponse } from '../schema/requests.js';
import { isTerminal, type StreamResponse, type Task } from '../schema/task.js';
import { cloneValue, deepFreeze } from './clone.js';
import { TaskListIndex } from './list-tasks.js';
import {
  OwnerMismatchError,
  StoreClosedError,
  VersionConflictError,
  type CommitRequest,
  type CommitResult,
  type StoredEvent,
  type TaskQuery,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

/** Default of {@link MemoryTaskStoreOptions.maxTasks}. */
export const DEFAULT_MAX_TASKS = 10_000;
/** Default of {@link MemoryTaskStoreOptions.maxEventsPerTask} (shared with the file store). */
export const DEFAULT_MAX_EVENTS_PER_TASK = 10_000;

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * How many tasks to keep (default 10,000; `Infinity` for no bound). Past
   * it, terminal tasks (completed, failed, canceled, rejected) are evicted,
   * least recently updated first. Non-terminal tasks are never evicted (that
   * would lose live work): if they alone exceed the bound, the store holds
   * them all and keeps only the most recently committed terminal task
   * (evicting the previous one on the next commit) until enough of them end.
   */
  readonly maxTasks?: number;
  /** Terminal tasks not updated for this long are evicted (default: never). */
  readonly terminalTtlMs?: number;
  /**
   * Events kept per task, newest first (default 10,000). Older events are
   * dropped: `readEvents` then starts at the oldest event kept, so a reader
   * whose position is older sees a gap in the sequence numbers.
   */
  readonly maxEventsPerTask?: number;
  /** The clock, in milliseconds, used for `terminalTtlMs` (default `Date.now`). */
  readonly now?: () => number;
}

interface Slot {
  task: Task;
  version: number;
  owner: string;
  lastSequence: number;
  /** The newest events, contiguous, ending at `lastSequence` (so the first is `lastSequence - events.length + 1`). */
  events: StreamResponse[];
  updatedAt: number;
  /** Set once the slot holds a value that is not JSON-like: it is then copied on the way out too. */
  copied: boolean;
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
  /** Terminal tasks: id → the stamp of its entry in {@link order}. */
  private readonly terminal = new Map<string, number>();
  /**
   * Terminal tasks, least recently updated first, from {@link head} on; an
   * entry whose stamp is no longer the task's in {@link terminal} is stale
   * and skipped. (Iterating a Map from its start after many deletions walks
   * over their holes: eviction would cost O(n) per commit.)
   */
  private order: { readonly id: string; readonly stamp: number; readonly at: number }[] = [];
  private head = 0;
  private stamps = 0;
  private readonly index = new TaskListIndex();
  private readonly maxTasks: number;
  private readonly ttl: number;
  private readonly maxEvents: number;
  private readonly now: () => number;
  private closed = false;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxTasks = positive(options.maxTasks, DEFAULT_MAX_TASKS, 'maxTasks');
    this.ttl = positive(options.terminalTtlMs, Infinity, 'terminalTtlMs');
    this.maxEvents = positive(options.maxEventsPerTask, DEFAULT_MAX_EVENTS_PER_TASK, 'maxEventsPerTask');
    this.now = options.now ?? Date.now;
  }

  /** Number of tasks held now (after evicting expired ones). */
  get size(): number {
    this.sweep();
    return this.slots.size;
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.check();
    const slot = this.slots.get(taskId);
    if (slot === undefined) return undefined;
    const task = slot.copied ? cloneValue(slot.task) : slot.task;
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
    if (!deepFreeze(task)) {
      task = cloneValue(task);
      copied = true;
    }
    const events: StreamResponse[] = [];
    for (const event of request.events) {
      // A new task's first event is the task itself: keep one copy of it, not two.
      if ('task' in event && event.task === request.task) events.push(copied ? { task } : Object.freeze({ task }));
      else if (deepFreeze(event)) events.push(event);
      else {
        copied = true;
        events.push(cloneValue(event));
      }
    }
    const now = this.now();
    const next: Slot = slot ?? { task, version: 0, owner: request.owner, lastSequence: 0, events: [], updatedAt: now, copied };
    const firstSequence = next.lastSequence + 1;
    for (const event of events) next.events.push(event);
    next.copied ||= copied;
    if (next.events.length > this.maxEvents) next.events.splice(0, next.events.length - this.maxEvents);
    next.task = task;
    next.version += 1;
    next.lastSequence += events.length;
    next.updatedAt = now;
    if (slot === undefined) this.slots.set(id, next);
    else this.terminal.delete(id);
    this.index.set(next.owner, task);
    if (isTerminal(task.status.state)) {
      const stamp = ++this.stamps;
      this.terminal.set(id, stamp);
      this.order.push({ id, stamp, at: now });
    }
    this.evictOverflow(id);
    return { version: next.version, firstSequence, lastSequence: next.lastSequence };
  }

  async list(query: TaskQuery): Promise<ListTasksResponse> {
    this.check();
    let copied = false;
    const page = this.index.query(query, (id) => {
      const slot = this.slots.get(id)!;
      copied ||= slot.copied;
      return slot.task;
    });
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
    const first = slot.lastSequence - slot.events.length + 1;
    const start = Math.max(0, afterSequence + 1 - first);
    const end = Math.min(slot.events.length, start + limit);
    const events: StoredEvent[] = [];
    for (let i = start; i < end; i++) events.push({ sequence: first + i, event: slot.events[i]! });
    return slot.copied ? cloneValue(events) : events;
  }

  async unsettled(): Promise<string[]> {
    this.check();
    return this.index.unsettled();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.slots.clear();
    this.terminal.clear();
    this.order = [];
    this.head = 0;
    this.index.load([]);
  }

  private check(): void {
    if (this.closed) throw new StoreClosedError();
    this.sweep();
  }

  private remove(taskId: string): boolean {
    this.terminal.delete(taskId);
    this.index.delete(taskId);
    return this.slots.delete(taskId);
  }

  /** Evicts terminal tasks older than the TTL (the oldest come first, so this stops early). */
  private sweep(): void {
    if (this.ttl === Infinity) return;
    const cutoff = this.now() - this.ttl;
    for (; this.head < this.order.length; this.head++) {
      const entry = this.order[this.head]!;
      if (this.terminal.get(entry.id) !== entry.stamp) continue;
      if (entry.at > cutoff) break;
      this.remove(entry.id);
    }
    this.compactOrder();
  }

  /** Evicts terminal tasks, oldest first, while over `maxTasks`; never `keep` (the task just committed). */
  private evictOverflow(keep: string): void {
    for (let i = this.head; i < this.order.length && this.slots.size > this.maxTasks; i++) {
      const entry = this.order[i]!;
      if (this.terminal.get(entry.id) === entry.stamp && entry.id !== keep) this.remove(entry.id);
      // Everything before the first entry still live (or kept) is stale now.
      if (i === this.head && this.terminal.get(entry.id) !== entry.stamp) this.head++;
    }
    this.compactOrder();
  }

  /** Drops passed and stale entries of {@link order} once they outnumber the live ones (amortised O(1)). */
  private compactOrder(): void {
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    const pending = this.order.length - this.head;
    if (pending > 1024 && pending > 2 * this.terminal.size) {
      this.order = this.order.slice(this.head).filter((entry) => this.terminal.get(entry.id) === entry.stamp);
      this.head = 0;
    }
  }
}

/** Creates a {@link MemoryTaskStore}; the same as `new MemoryTaskStore(options)`. */
export function createMemoryTaskStore(options: MemoryTaskStoreOptions = {}): MemoryTaskStore {
  return new MemoryTaskStore(options);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new RangeError(`MemoryTaskStore: ${name} must be a positive number (got ${value})`);
  return value;
}
