import { StoreClosedError } from '../store/task-store.js';
import type { DeadLetterMatch, DeadLetterQuery, PushDeadLetter, StoredPushConfig } from './push-config-store.js';

/** A push config store was used after `close` (a StoreClosedError): open a new one. */
export class PushStoreClosedError extends StoreClosedError {
  constructor() {
    super();
    this.message = 'The push config store is closed';
  }
}

/** Default of the stores' `maxDeadLetters`. */
export const DEFAULT_MAX_DEAD_LETTERS = 1000;

/**
 * The test of a {@link DeadLetterMatch}: true for a letter matching every
 * field given. Throws a RangeError when `match.before` is not a date.
 */
export function deadLetterFilter(match: DeadLetterMatch): (letter: PushDeadLetter) => boolean {
  const before = match.before === undefined ? Infinity : Date.parse(match.before);
  if (Number.isNaN(before)) throw new RangeError(`before must be an ISO 8601 date (got ${JSON.stringify(match.before)})`);
  return (letter) =>
    (match.taskId === undefined || letter.taskId === match.taskId) &&
    (match.configId === undefined || letter.configId === match.configId) &&
    (match.sequence === undefined || letter.sequence === match.sequence) &&
    (before === Infinity || Date.parse(letter.at) < before);
}

/**
 * The in-memory state both push store adapters keep (the file adapter
 * rebuilds it from its log): configs per task, cursors, and the newest
 * dead letters (oldest dropped past `maxDeadLetters`). It does not copy
 * values; adapters do.
 */
export class PushState {
  readonly byTask = new Map<string, Map<string, StoredPushConfig>>();
  readonly letters: PushDeadLetter[] = [];

  constructor(readonly maxDeadLetters: number) {
    if (!(maxDeadLetters >= 0)) throw new RangeError(`maxDeadLetters must be 0 or more (got ${maxDeadLetters})`);
  }

  /** Creates or replaces a config; the cursor keeps the larger value. Returns what is stored. */
  put(entry: StoredPushConfig): StoredPushConfig {
    const { taskId, id } = entry.config;
    let configs = this.byTask.get(taskId);
    if (!configs) this.byTask.set(taskId, (configs = new Map()));
    const old = configs.get(id);
    const stored = old && old.delivered > entry.delivered ? { ...entry, delivered: old.delivered } : entry;
    configs.set(id, stored);
    return stored;
  }

  get(taskId: string, configId: string): StoredPushConfig | undefined {
    return this.byTask.get(taskId)?.get(configId);
  }

  /** A task's configs, ordered by id. */
  list(taskId: string): StoredPushConfig[] {
    const configs = this.byTask.get(taskId);
    if (!configs) return [];
    return [...configs.values()].sort((a, b) => (a.config.id < b.config.id ? -1 : a.config.id > b.config.id ? 1 : 0));
  }

  /** Every config's task and id (of `taskId` alone when given). */
  keys(taskId?: string): { taskId: string; configId: string }[] {
    const entries = taskId === undefined ? this.all() : this.list(taskId);
    return entries.map(({ config }) => ({ taskId: config.taskId, configId: config.id }));
  }

  all(): StoredPushConfig[] {
    return [...this.byTask.values()].flatMap((configs) => [...configs.values()]);
  }

  delete(taskId: string, configId: string): boolean {
    const configs = this.byTask.get(taskId);
    const existed = configs?.delete(configId) ?? false;
    if (configs?.size === 0) this.byTask.delete(taskId);
    return existed;
  }

  deleteTask(taskId: string): number {
    const count = this.byTask.get(taskId)?.size ?? 0;
    this.byTask.delete(taskId);
    return count;
  }

  /** Moves a cursor forward; ignores a missing config and a lower sequence. */
  advance(taskId: string, configId: string, sequence: number): void {
    const entry = this.get(taskId, configId);
    if (entry && sequence > entry.delivered) this.byTask.get(taskId)!.set(configId, { ...entry, delivered: sequence });
  }

  /** Records a dead letter (dropping the oldest past the bound) and advances its config's cursor past it. */
  deadLetter(letter: PushDeadLetter): void {
    if (this.maxDeadLetters > 0) {
      this.letters.push(letter);
      if (this.letters.length > this.maxDeadLetters) this.letters.splice(0, this.letters.length - this.maxDeadLetters);
    }
    this.advance(letter.taskId, letter.configId, letter.throughSequence ?? letter.sequence);
  }

  /** Removes the dead letters matching (see {@link deadLetterFilter}); returns how many. Cursors do not move. */
  removeDeadLetters(match: DeadLetterMatch): number {
    const matches = deadLetterFilter(match);
    let kept = 0;
    for (const letter of this.letters) if (!matches(letter)) this.letters[kept++] = letter;
    const removed = this.letters.length - kept;
    this.letters.length = kept;
    return removed;
  }

  /** Dead letters, oldest first, filtered by task, the newest `limit` of them. */
  listDeadLetters(query: DeadLetterQuery = {}): PushDeadLetter[] {
    const matching = query.taskId === undefined ? this.letters : this.letters.filter((l) => l.taskId === query.taskId);
    const limit = query.limit ?? Infinity;
    return limit >= matching.length ? [...matching] : matching.slice(matching.length - Math.max(0, limit));
  }
}
