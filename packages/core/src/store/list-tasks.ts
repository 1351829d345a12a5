import { A2AError } from '../errors.js';
import { LIST_TASKS_PAGE_SIZE, type ListTasksResponse } from '../schema/requests.js';
import { isSettled, type Task, type TaskState } from '../schema/task.js';
import { decodePageToken, encodePageToken, timestampSortKey, type ListCursor } from './list-cursor.js';
import type { TaskQuery } from './task-store.js';

export { decodePageToken, encodePageToken, timestampSortKey, type ListCursor } from './list-cursor.js';

/** What {@link projectTask} keeps of a task (the ListTasks / GetTask projection params). */
export interface TaskProjection {
  /** Unset: the whole history; 0: `history` omitted; n: only the last n messages. */
  readonly historyLength?: number | undefined;
  /** When not `true`, the `artifacts` key is omitted. GetTask passes `true`. */
  readonly includeArtifacts?: boolean | undefined;
}

/**
 * A task as an answer shows it: its whole history, or the last
 * `historyLength` messages (0: none), artifacts included. A frozen (stored)
 * task with nothing to cut is returned itself, not a copy.
 */
export function answerTask(task: Task, historyLength: number | undefined): Task {
  const n = historyLength;
  if (Object.isFrozen(task) && (task.history === undefined || (n !== 0 && (n === undefined || n >= task.history.length)))) return task;
  return projectTask(task, { historyLength: n, includeArtifacts: true });
}

/**
 * Returns a new task object shaped by `projection`; `task` is not modified.
 * The copy is shallow: nested objects (messages, artifacts) are shared with
 * `task`, so clone the result before handing it to code that may mutate it.
 */
export function projectTask(task: Task, projection: TaskProjection): Task {
  const { artifacts, history, ...rest } = task;
  const out: Task = rest;
  if (projection.includeArtifacts === true && artifacts !== undefined) out.artifacts = artifacts;
  const n = projection.historyLength;
  if (history !== undefined && n !== 0) out.history = n === undefined || n >= history.length ? history : history.slice(-n);
  return out;
}

/** The positions a ListTasks query asks for, checked: see {@link listQueryBounds}. */
export interface ListQueryBounds {
  /** The page size, clamped to 1..100 (default 50). */
  readonly pageSize: number;
  /** Where the previous page ended (the page starts strictly after it). */
  readonly cursor: ListCursor | undefined;
  /** The sort key of `statusTimestampAfter` (tasks at or after it match). */
  readonly after: string | undefined;
}

/**
 * Resolves a ListTasks query's page size, cursor and timestamp floor the way
 * every store reads them (a store that answers in SQL uses them as query
 * parameters). Throws an `InvalidParams` {@link A2AError} for a `pageToken`
 * this server did not issue or a `statusTimestampAfter` that is not ISO 8601.
 */
export function listQueryBounds(query: TaskQuery): ListQueryBounds {
  const requested = Number.isFinite(query.pageSize) ? Math.trunc(query.pageSize!) : LIST_TASKS_PAGE_SIZE.default;
  const pageSize = Math.min(LIST_TASKS_PAGE_SIZE.max, Math.max(LIST_TASKS_PAGE_SIZE.min, requested));
  const cursor = query.pageToken ? decodePageToken(query.pageToken) : undefined;
  let after: string | undefined;
  if (query.statusTimestampAfter !== undefined) {
    after = timestampSortKey(query.statusTimestampAfter);
    if (after === '') {
      throw new A2AError('InvalidParams', 'Invalid parameters: statusTimestampAfter must be an ISO 8601 timestamp such as 2025-10-28T10:30:00Z');
    }
  }
  return { pageSize, cursor, after };
}

/** The fields of a task the list index needs (a {@link Task} satisfies it). */
export interface IndexedTaskFields {
  readonly id: string;
  readonly contextId: string;
  readonly status: { readonly state: TaskState; readonly timestamp?: string | undefined };
}

interface Entry {
  readonly key: string;
  readonly id: string;
  readonly owner: string;
  readonly contextId: string;
  readonly state: TaskState;
}

/** Orders entries ascending by (key, id); ListTasks walks them from the end. */
function compare(a: ListCursor, b: ListCursor): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

/** First index whose key is not less than `key`. */
function firstAtOrAfterKey(entries: readonly Entry[], key: string): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose entry is not less than `cursor`. */
function lowerBound(entries: readonly Entry[], cursor: ListCursor): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(entries[mid]!, cursor) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The ListTasks index every store shares: per owner, the tasks sorted by
 * status timestamp and id, kept sorted on every change (binary search +
 * splice; the newest task goes at the end, so the common update is cheap),
 * so a page costs O(log n + page) rather than a full sort. `totalSize` is
 * O(1) without filters, O(log n) with only `statusTimestampAfter` and a scan
 * of the owner's tasks otherwise.
 */
export class TaskListIndex {
  private readonly byOwner = new Map<string, Entry[]>();
  private readonly byId = new Map<string, Entry>();

  /** Number of indexed tasks. */
  get size(): number {
    return this.byId.size;
  }

  /** Adds the task, or moves it to where its new fields put it. */
  set(owner: string, task: IndexedTaskFields): void {
    const entry = makeEntry(owner, task);
    const old = this.byId.get(entry.id);
    this.byId.set(entry.id, entry);
    if (old !== undefined) {
      const entries = this.byOwner.get(old.owner)!;
      const at = indexOf(entries, old);
      // Still in order where it was (a status change in the same millisecond, say): replace it in place.
      if (old.owner === owner && (at === 0 || compare(entries[at - 1]!, entry) < 0) && (at === entries.length - 1 || compare(entry, entries[at + 1]!) < 0)) {
        entries[at] = entry;
        return;
      }
      removeAt(entries, at);
      if (entries.length === 0) this.byOwner.delete(old.owner);
    }
    const entries = this.entriesOf(owner);
    const at = insertionPoint(entries, entry);
    if (at === entries.length) entries.push(entry);
    else entries.splice(at, 0, entry);
  }

  /** Removes the task; true when it was indexed. */
  delete(taskId: string): boolean {
    const entry = this.byId.get(taskId);
    if (entry === undefined) return false;
    this.byId.delete(taskId);
    const entries = this.byOwner.get(entry.owner)!;
    removeAt(entries, indexOf(entries, entry));
    if (entries.length === 0) this.byOwner.delete(entry.owner);
    return true;
  }

  /** The ids of indexed tasks that are submitted or working, of every owner. */
  unsettled(): string[] {
    const ids: string[] = [];
    for (const entry of this.byId.values()) if (!isSettled(entry.state)) ids.push(entry.id);
    return ids;
  }

  /** Replaces the whole index at once (one sort), e.g. when a store is loaded from disk. */
  load(tasks: Iterable<{ readonly owner: string; readonly task: IndexedTaskFields }>): void {
    this.byOwner.clear();
    this.byId.clear();
    for (const { owner, task } of tasks) {
      const entry = makeEntry(owner, task);
      if (this.byId.has(entry.id)) throw new Error(`TaskListIndex.load: task ${entry.id} appears twice`);
      this.byId.set(entry.id, entry);
      this.entriesOf(owner).push(entry);
    }
    for (const entries of this.byOwner.values()) entries.sort(compare);
  }

  /**
   * Answers a ListTasks query. `load(id)` returns the stored task (the
   * result is projected, not copied: return a copy if the store keeps the
   * object). Throws `InvalidParams` for a bad `pageToken` or
   * `statusTimestampAfter`. `pageSize` is clamped to 1..100 (default 50).
   */
  query(query: TaskQuery, load: (taskId: string) => Task): ListTasksResponse {
    const { pageSize, cursor, after } = listQueryBounds(query);
    const entries = this.byOwner.get(query.owner) ?? [];
    const { contextId, status } = query;
    const matches = (e: Entry) => (contextId === undefined || e.contextId === contextId) && (status === undefined || e.state === status);
    // Entries past `floor` (exclusive) are at or after statusTimestampAfter (the proto's "greater than or equal").
    const floor = after === undefined ? -1 : firstAtOrAfterKey(entries, after) - 1;
    let totalSize = 0;
    if (contextId === undefined && status === undefined) totalSize = entries.length - 1 - floor;
    else for (let i = entries.length - 1; i > floor; i--) if (matches(entries[i]!)) totalSize++;

    const page: Entry[] = [];
    let more = false;
    for (let i = (cursor ? lowerBound(entries, cursor) : entries.length) - 1; i > floor; i--) {
      const entry = entries[i]!;
      if (!matches(entry)) continue;
      if (page.length === pageSize) {
        more = true;
        break;
      }
      page.push(entry);
    }
    const last = page[page.length - 1];
    const projection = { historyLength: query.historyLength, includeArtifacts: query.includeArtifacts };
    return {
      tasks: page.map((e) => projectTask(load(e.id), projection)),
      nextPageToken: more && last ? encodePageToken(last) : '',
      pageSize,
      totalSize,
    };
  }

  private entriesOf(owner: string): Entry[] {
    let entries = this.byOwner.get(owner);
    if (entries === undefined) this.byOwner.set(owner, (entries = []));
    return entries;
  }
}

/** How many entries at each end {@link indexOf} checks before a binary search: updates touch the newest tasks, eviction the oldest. */
const NEAR_END = 64;

/** The position of `entry` (which is in `entries`): a short scan of both ends, else a binary search. */
function indexOf(entries: readonly Entry[], entry: Entry): number {
  const n = entries.length;
  for (let i = n - 1, stop = Math.max(0, n - NEAR_END); i >= stop; i--) if (entries[i] === entry) return i;
  if (entries[0] === entry) return 0;
  return lowerBound(entries, entry);
}

/** Where `entry` goes to keep `entries` sorted: a short scan back from the end (where new tasks go), else a binary search. */
function insertionPoint(entries: readonly Entry[], entry: Entry): number {
  const n = entries.length;
  const stop = Math.max(0, n - NEAR_END);
  for (let i = n - 1; i >= stop; i--) if (compare(entries[i]!, entry) < 0) return i + 1;
  return stop === 0 ? 0 : lowerBound(entries, entry);
}

/** Removes the entry at `at`, moving the shorter side of the array. */
function removeAt(entries: Entry[], at: number): void {
  if (at < entries.length >>> 1) {
    // Near the front (eviction removes the oldest tasks): move the entries before it up by one and
    // drop the first. shift() trims the array in place, where splice() would move every later entry.
    for (let i = at; i > 0; i--) entries[i] = entries[i - 1]!;
    entries.shift();
  } else {
    entries.splice(at, 1);
  }
}

function makeEntry(owner: string, task: IndexedTaskFields): Entry {
  return { key: timestampSortKey(task.status.timestamp), id: task.id, owner, contextId: task.contextId, state: task.status.state };
}
