import type { TaskState } from '../schema/task.js';
import { compare, indexOf, insertionPoint, removeAt, type Entry } from './list-index-entries.js';

/** The sorted lists of one owner's tasks, or of one owner's tasks in one context: all of them, and per state. */
interface Lists {
  readonly all: Entry[];
  readonly byState: Map<TaskState, Entry[]>;
}

/**
 * An owner's lists, with the lists of each of its contexts. A context of
 * one task (the common case: a message without a contextId starts a new
 * one) is held as that task's entry alone, and gets lists once a second
 * task joins it: no lists, state map or arrays made and kept per task.
 */
interface OwnerLists extends Lists {
  readonly byContext: Map<string, Lists | Entry>;
}

/** True for a context held as its one task's entry. */
function isEntry(context: Lists | Entry): context is Entry {
  return (context as Partial<Lists>).all === undefined;
}

/** Fresh lists, empty. */
function emptyLists(): Lists {
  return { all: [], byState: new Map() };
}

/** Inserts `entry` where it keeps `entries` sorted. */
function insert(entries: Entry[], entry: Entry): void {
  const at = insertionPoint(entries, entry);
  if (at === entries.length) entries.push(entry);
  else entries.splice(at, 0, entry);
}

/** Adds `entry` to the list of all and to its state's list: sorted, or appended (`sorted: false`). */
function addTo(lists: Lists, entry: Entry, sorted: boolean): void {
  const byState = stateList(lists, entry.state);
  if (sorted) {
    insert(lists.all, entry);
    insert(byState, entry);
  } else {
    lists.all.push(entry);
    byState.push(entry);
  }
}

/** The list of `lists` for `state`, made when missing. */
function stateList(lists: Lists, state: TaskState): Entry[] {
  let entries = lists.byState.get(state);
  if (entries === undefined) lists.byState.set(state, (entries = []));
  return entries;
}

/** Removes `entry` from `lists` (its state list goes when it empties); true when `lists` is then empty. */
function removeFrom(lists: Lists, entry: Entry): boolean {
  const entries = lists.byState.get(entry.state)!;
  removeAt(entries, indexOf(entries, entry));
  if (entries.length === 0) lists.byState.delete(entry.state);
  removeAt(lists.all, indexOf(lists.all, entry));
  return lists.all.length === 0;
}

/**
 * Moves `old` to `entry` within `lists` (same owner, and same context for
 * a context's lists): in place where it stays in order (a status change in
 * the same millisecond, say), else removed and inserted again.
 */
function moveWithin(lists: Lists, old: Entry, entry: Entry): void {
  replaceOrMove(lists.all, old, entry);
  if (old.state === entry.state) return replaceOrMove(lists.byState.get(entry.state)!, old, entry);
  const before = lists.byState.get(old.state)!;
  removeAt(before, indexOf(before, old));
  if (before.length === 0) lists.byState.delete(old.state);
  insert(stateList(lists, entry.state), entry);
}

function replaceOrMove(entries: Entry[], old: Entry, entry: Entry): void {
  const at = indexOf(entries, old);
  if ((at === 0 || compare(entries[at - 1]!, entry) < 0) && (at === entries.length - 1 || compare(entry, entries[at + 1]!) < 0)) {
    entries[at] = entry;
    return;
  }
  removeAt(entries, at);
  insert(entries, entry);
}

/**
 * The lists of a ListTasks index, per owner, and per owner and context,
 * state, or both, each sorted (see `compare`), looked up by the owner,
 * context and state themselves (no key is built per call).
 */
export class IndexLists {
  private readonly owners = new Map<string, OwnerLists>();

  /** The list a query with these filters reads (`undefined`: any); empty when there is none. */
  list(owner: string, contextId: string | undefined, state: TaskState | undefined): readonly Entry[] {
    const ofOwner = this.owners.get(owner);
    const lists = contextId === undefined ? ofOwner : ofOwner?.byContext.get(contextId);
    if (lists === undefined) return [];
    if (isEntry(lists)) return state === undefined || lists.state === state ? [lists] : [];
    return (state === undefined ? lists.all : lists.byState.get(state)) ?? [];
  }

  /** Adds `entry` to its four lists, sorted; with `sorted: false`, appends it (call {@link sort} after). */
  add(entry: Entry, sorted = true): void {
    let ofOwner = this.owners.get(entry.owner);
    if (ofOwner === undefined) this.owners.set(entry.owner, (ofOwner = { all: [], byState: new Map(), byContext: new Map() }));
    addTo(ofOwner, entry, sorted);
    const ofContext = ofOwner.byContext.get(entry.contextId);
    if (ofContext === undefined) {
      ofOwner.byContext.set(entry.contextId, entry);
    } else if (isEntry(ofContext)) {
      // A second task in the context: it gets its lists now.
      const lists = emptyLists();
      addTo(lists, ofContext, sorted);
      addTo(lists, entry, sorted);
      ofOwner.byContext.set(entry.contextId, lists);
    } else {
      addTo(ofContext, entry, sorted);
    }
  }

  /** Removes `entry` (which was added) from its lists; lists, contexts and owners left empty go. */
  remove(entry: Entry): void {
    const ofOwner = this.owners.get(entry.owner)!;
    const ofContext = ofOwner.byContext.get(entry.contextId)!;
    if (isEntry(ofContext) || removeFrom(ofContext, entry)) ofOwner.byContext.delete(entry.contextId);
    if (removeFrom(ofOwner, entry)) this.owners.delete(entry.owner);
  }

  /** Replaces `old` (which was added) with `entry`, the same task's new fields. */
  replace(old: Entry, entry: Entry): void {
    if (old.owner !== entry.owner || old.contextId !== entry.contextId) {
      this.remove(old);
      this.add(entry);
      return;
    }
    const ofOwner = this.owners.get(entry.owner)!;
    moveWithin(ofOwner, old, entry);
    const ofContext = ofOwner.byContext.get(entry.contextId)!;
    if (isEntry(ofContext)) ofOwner.byContext.set(entry.contextId, entry);
    else moveWithin(ofContext, old, entry);
  }

  /** Sorts every list (after {@link add} with `sorted: false`). */
  sort(): void {
    for (const ofOwner of this.owners.values()) {
      sortLists(ofOwner);
      for (const ofContext of ofOwner.byContext.values()) if (!isEntry(ofContext)) sortLists(ofContext);
    }
  }

  /** Drops every list. */
  clear(): void {
    this.owners.clear();
  }
}

function sortLists(lists: Lists): void {
  lists.all.sort(compare);
  for (const entries of lists.byState.values()) entries.sort(compare);
}
