import { A2AError } from '../errors.js';
import { LIST_TASKS_PAGE_SIZE } from '../schema/requests.js';
import { isSettled, type Task, type TaskState } from '../schema/task.js';
import { firstAtOrAfterKey, lowerBound, type Entry } from './list-index-entries.js';
import { IndexLists } from './list-index-lists.js';
import { decodePageToken, encodePageToken, timestampSortKey, type ListCursor } from './list-cursor.js';
import type { TaskListPage, TaskQuery } from './task-store.js';

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

/** What a {@link TaskListIndex} reports of its own work (tests check that a page costs what it returns). */
export interface ListIndexProbe {
  /** Entries looked at by queries so far (matched or not). */
  visited: number;
}

/**
 * The ListTasks index every store shares: per owner, and per owner and
 * context, state, or both, the tasks sorted by status timestamp and id,
 * kept sorted on every change (binary search + splice; the newest task goes
 * at the end, so the common update is cheap). Every query reads the one
 * list its filters name, so a page costs O(log n + page) and `totalSize`
 * O(log n), whatever the filters and however many tasks the owner has.
 */
export class TaskListIndex {
  private readonly lists = new IndexLists();
  private readonly byId = new Map<string, Entry>();

  /** `probe`, when given, counts the entries queries look at. */
  constructor(private readonly probe?: ListIndexProbe) {}

  /** Number of indexed tasks. */
  get size(): number {
    return this.byId.size;
  }

  /** Adds the task, or moves it to where its new fields put it. */
  set(owner: string, task: IndexedTaskFields): void {
    const entry = makeEntry(owner, task);
    const old = this.byId.get(entry.id);
    this.byId.set(entry.id, entry);
    if (old === undefined) this.lists.add(entry);
    else this.lists.replace(old, entry);
  }

  /** Removes the task; true when it was indexed. */
  delete(taskId: string): boolean {
    const entry = this.byId.get(taskId);
    if (entry === undefined) return false;
    this.byId.delete(taskId);
    this.lists.remove(entry);
    return true;
  }

  /** The ids of indexed tasks that are submitted or working, of every owner. */
  unsettled(): string[] {
    const ids: string[] = [];
    for (const entry of this.byId.values()) if (!isSettled(entry.state)) ids.push(entry.id);
    return ids;
  }

  /** Replaces the whole index at once (one sort per list), e.g. when a store is loaded from disk. */
  load(tasks: Iterable<{ readonly owner: string; readonly task: IndexedTaskFields }>): void {
    this.lists.clear();
    this.byId.clear();
    for (const { owner, task } of tasks) {
      const entry = makeEntry(owner, task);
      if (this.byId.has(entry.id)) throw new Error(`TaskListIndex.load: task ${entry.id} appears twice`);
      this.byId.set(entry.id, entry);
      this.lists.add(entry, false);
    }
    this.lists.sort();
  }

  /**
   * Answers a ListTasks query. `load(id)` returns the stored task (the
   * result is projected, not copied: return a copy if the store keeps the
   * object); `generationOf(id)`, when given, its last sequence (the page's
   * `generations`). Throws `InvalidParams` for a bad `pageToken` or
   * `statusTimestampAfter`. `pageSize` is clamped to 1..100 (default 50).
   */
  query(query: TaskQuery, load: (taskId: string) => Task, generationOf?: (taskId: string) => number): TaskListPage {
    const { pageSize, cursor, after } = listQueryBounds(query);
    const entries = this.lists.list(query.owner, query.contextId, query.status);
    // Entries past `floor` (exclusive) are at or after statusTimestampAfter (the proto's "greater than or equal").
    const floor = after === undefined ? -1 : firstAtOrAfterKey(entries, after) - 1;
    const start = (cursor ? lowerBound(entries, cursor) : entries.length) - 1;
    const stop = Math.max(floor, start - pageSize);
    const page: Entry[] = [];
    for (let i = start; i > stop; i--) page.push(entries[i]!);
    if (this.probe !== undefined) this.probe.visited += page.length;
    const last = page[page.length - 1];
    const projection = { historyLength: query.historyLength, includeArtifacts: query.includeArtifacts };
    const answer: TaskListPage = {
      tasks: page.map((e) => projectTask(load(e.id), projection)),
      nextPageToken: stop > floor && last ? encodePageToken(last) : '',
      pageSize,
      totalSize: entries.length - 1 - floor,
    };
    return generationOf === undefined ? answer : { ...answer, generations: page.map((e) => generationOf(e.id)) };
  }
}

function makeEntry(owner: string, task: IndexedTaskFields): Entry {
  return { key: timestampSortKey(task.status.timestamp), id: task.id, owner, contextId: task.contextId, state: task.status.state };
}
