import { isTerminal } from '../schema/task.js';
import type { IndexedTaskFields } from './list-tasks.js';

/**
 * The terminal tasks of a store, least recently updated first: what a
 * bounded store evicts by count (`maxTasks`) and by age (`terminalTtlMs`).
 * Stores call {@link touch} on every commit and {@link forget} when a task
 * goes; eviction calls back `remove` for each task to drop, which must
 * {@link forget} it. All operations are amortised O(1) per task.
 */
export class TerminalOrder {
  /** Terminal tasks: id → the stamp of its entry in {@link entries}. */
  private readonly stamps = new Map<string, number>();
  /**
   * Oldest first, from {@link head} on; an entry whose stamp is no longer
   * the task's is stale and skipped. (Iterating a Map from its start after
   * many deletions walks over their holes: eviction would cost O(n).)
   */
  private entries: { readonly id: string; readonly stamp: number; readonly at: number }[] = [];
  private head = 0;
  private counter = 0;

  /** Number of terminal tasks. */
  get size(): number {
    return this.stamps.size;
  }

  /** A commit of `id` at time `at`: a terminal task becomes the newest; any other leaves the order. */
  touch(id: string, terminal: boolean, at: number): void {
    if (!terminal) {
      this.stamps.delete(id);
      return;
    }
    const stamp = ++this.counter;
    this.stamps.set(id, stamp);
    this.entries.push({ id, stamp, at });
    this.compact();
  }

  /** `id` is gone from the store (deleted or evicted). */
  forget(id: string): void {
    this.stamps.delete(id);
  }

  /** Calls `remove` for terminal tasks, oldest first, while `over()` holds; never for `keep`. */
  evictWhile(over: () => boolean, keep: string | undefined, remove: (id: string) => void): void {
    for (let i = this.head; i < this.entries.length && over(); i++) {
      const entry = this.entries[i]!;
      if (this.stamps.get(entry.id) === entry.stamp && entry.id !== keep) remove(entry.id);
      // Everything before the first entry still live (or kept) is stale now.
      if (i === this.head && this.stamps.get(entry.id) !== entry.stamp) this.head++;
    }
    this.compact();
  }

  /** Calls `remove` for every terminal task last updated before `cutoff`, oldest first (stops at the first newer one). */
  expire(cutoff: number, remove: (id: string) => void): void {
    for (; this.head < this.entries.length; this.head++) {
      const entry = this.entries[this.head]!;
      if (this.stamps.get(entry.id) !== entry.stamp) continue;
      if (entry.at > cutoff) break;
      remove(entry.id);
    }
    this.compact();
  }

  /** Empties the order. */
  clear(): void {
    this.stamps.clear();
    this.entries = [];
    this.head = 0;
  }

  /** Drops passed and stale entries once they outnumber the live ones (amortised O(1)). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    const pending = this.entries.length - this.head;
    if (pending > 1024 && pending > 2 * this.stamps.size) {
      this.entries = this.entries.slice(this.head).filter((entry) => this.stamps.get(entry.id) === entry.stamp);
      this.head = 0;
    }
  }
}

/** The bounds of a store: how many tasks, and how long terminal ones, it keeps. */
export interface TaskBoundsOptions {
  /**
   * How many tasks to keep. Past it, terminal tasks (completed, failed,
   * canceled, rejected) are evicted, least recently updated first.
   * Non-terminal tasks are never evicted (that would lose live work): if
   * they alone exceed the bound, the store holds them all and keeps only the
   * most recently committed terminal task (evicting the previous one on the
   * next commit) until enough of them end.
   */
  readonly maxTasks?: number;
  /** Terminal tasks not updated for this long are evicted (default: never). */
  readonly terminalTtlMs?: number;
  /** The clock, in milliseconds, used for `terminalTtlMs` (default `Date.now`). */
  readonly now?: () => number;
}

/** `value` when it is a positive number, `fallback` when unset; a RangeError naming `owner` and `name` otherwise. */
export function positiveOption(value: number | undefined, fallback: number, owner: string, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) throw new RangeError(`${owner}: ${name} must be a positive number (got ${value})`);
  return value;
}

/** {@link TaskBoundsOptions} checked, with their defaults filled in. */
export interface ResolvedBounds {
  readonly maxTasks: number;
  readonly terminalTtlMs: number;
  readonly now: () => number;
}

/** Checks a store's bounds (a RangeError naming `owner` for one that is not a positive number) and fills in defaults. */
export function resolveBounds(options: TaskBoundsOptions, defaultMaxTasks: number, owner: string): ResolvedBounds {
  return {
    maxTasks: positiveOption(options.maxTasks, defaultMaxTasks, owner, 'maxTasks'),
    terminalTtlMs: positiveOption(options.terminalTtlMs, Infinity, owner, 'terminalTtlMs'),
    now: options.now ?? Date.now,
  };
}

/**
 * Keeps a store within its {@link TaskBoundsOptions}: the store reports
 * every commit ({@link committed}) and deletion ({@link forget}), calls
 * {@link sweep} before serving a call, and gets `remove(id)` calls back for
 * each task to evict. With neither bound set it tracks nothing.
 */
export class TaskBounds {
  readonly maxTasks: number;
  readonly terminalTtlMs: number;
  readonly now: () => number;
  private readonly order = new TerminalOrder();
  private readonly tracking: boolean;

  /** `count()` is the store's number of tasks; `remove(id)` evicts one (it need not call {@link forget}). */
  constructor(
    bounds: ResolvedBounds,
    private readonly count: () => number,
    private readonly remove: (taskId: string) => void,
  ) {
    ({ maxTasks: this.maxTasks, terminalTtlMs: this.terminalTtlMs, now: this.now } = bounds);
    this.tracking = this.maxTasks !== Infinity || this.terminalTtlMs !== Infinity;
  }

  /** A commit left `taskId` terminal or not, at `at` (default now); evicts while over `maxTasks`, never `taskId` itself. */
  committed(taskId: string, terminal: boolean, at: number = this.now()): void {
    if (!this.tracking) return;
    this.order.touch(taskId, terminal, at);
    if (this.count() > this.maxTasks) this.order.evictWhile(() => this.count() > this.maxTasks, taskId, this.drop);
  }

  /**
   * Takes in a store's existing tasks (after a reopen): the terminal ones in
   * the order their status timestamps say they ended, evicting as the
   * bounds require, so eviction goes on where it stopped.
   */
  seed(tasks: readonly IndexedTaskFields[]): void {
    const at = (task: IndexedTaskFields) => Date.parse(task.status.timestamp ?? '') || 0;
    const ended = tasks.filter((task) => isTerminal(task.status.state)).sort((a, b) => at(a) - at(b));
    for (const task of ended) this.committed(task.id, true, at(task));
  }

  /** Evicts terminal tasks older than `terminalTtlMs`. */
  sweep(): void {
    if (this.terminalTtlMs !== Infinity) this.order.expire(this.now() - this.terminalTtlMs, this.drop);
  }

  /** `taskId` is gone from the store. */
  forget(taskId: string): void {
    this.order.forget(taskId);
  }

  /** Forgets every task. */
  clear(): void {
    this.order.clear();
  }

  private readonly drop = (taskId: string): void => {
    this.order.forget(taskId);
    this.remove(taskId);
  };
}
