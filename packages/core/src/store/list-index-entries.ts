import type { TaskState } from '../schema/task.js';
import type { ListCursor } from './list-cursor.js';

/** One task in a ListTasks index list: its sort key (status timestamp), id and the fields filters match. */
export interface Entry {
  readonly key: string;
  readonly id: string;
  readonly owner: string;
  readonly contextId: string;
  readonly state: TaskState;
}

/** Orders entries ascending by (key, id); ListTasks walks them from the end. */
export function compare(a: ListCursor, b: ListCursor): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  return a.id === b.id ? 0 : a.id < b.id ? -1 : 1;
}

/** First index whose key is not less than `key`. */
export function firstAtOrAfterKey(entries: readonly Entry[], key: string): number {
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
export function lowerBound(entries: readonly Entry[], cursor: ListCursor): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(entries[mid]!, cursor) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many entries at each end {@link indexOf} checks before a binary search: updates touch the newest tasks, eviction the oldest. */
const NEAR_END = 64;

/** The position of `entry` (which is in `entries`): a short scan of both ends, else a binary search. */
export function indexOf(entries: readonly Entry[], entry: Entry): number {
  const n = entries.length;
  for (let i = n - 1, stop = Math.max(0, n - NEAR_END); i >= stop; i--) if (entries[i] === entry) return i;
  if (entries[0] === entry) return 0;
  return lowerBound(entries, entry);
}

/** Where `entry` goes to keep `entries` sorted: a short scan back from the end (where new tasks go), else a binary search. */
export function insertionPoint(entries: readonly Entry[], entry: Entry): number {
  const n = entries.length;
  const stop = Math.max(0, n - NEAR_END);
  for (let i = n - 1; i >= stop; i--) if (compare(entries[i]!, entry) < 0) return i + 1;
  return stop === 0 ? 0 : lowerBound(entries, entry);
}

/** Removes the entry at `at`, moving the shorter side of the array. */
export function removeAt(entries: Entry[], at: number): void {
  if (at < entries.length >>> 1) {
    // Near the front (eviction removes the oldest tasks): move the entries before it up by one and
    // drop the first. shift() trims the array in place, where splice() would move every later entry.
    for (let i = at; i > 0; i--) entries[i] = entries[i - 1]!;
    entries.shift();
  } else {
    entries.splice(at, 1);
  }
}
