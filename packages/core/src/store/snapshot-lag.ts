/**
 * How far a task's stored JSON may fall behind its event log (see
 * `CommitRequest.appendOnly`): a commit that only appends logs its events
 * alone until `events` events or `ms` milliseconds have gone by since the
 * task's JSON was last written; the next commit then writes it again (a
 * store that tells sizes, the file store, lets it lag further while the
 * events logged since are fewer characters than the JSON: see
 * {@link SnapshotLags.mayAppend}). State
 * changes, interruptions and terminal states always write it. Reads are
 * exact either way (they reduce the events after the snapshot); the bounds
 * only cap what a read reduces. `events: 0` writes the JSON at every commit.
 */
export interface SnapshotOptions {
  /** Default 100. */
  readonly events?: number;
  /** Default 1,000. */
  readonly ms?: number;
}

/** Tasks whose lag this store follows at most (the least recently committed are forgotten: their next commit writes the JSON). */
const MAX_FOLLOWED = 10_000;

interface Lag {
  /** The version the row is at after this store's last commit of it. */
  version: number;
  /** Events logged after the snapshot. */
  events: number;
  /** Characters of those events' JSON (when the store says, see {@link SnapshotLags.appended}). */
  chars: number;
  /** Characters of the snapshot's JSON (when the store says, see {@link SnapshotLags.wrote}). */
  readonly size: number;
  /** When the snapshot was written (ms). */
  readonly since: number;
}

/**
 * What one store knows of the snapshots it wrote: per task, the version its
 * last commit left and how many events were logged since the JSON was
 * written. A commit may only append when the row is still at that version
 * (no other writer came in between, so the lag is known) and stays within
 * the bounds (and within `maxEvents`, the retention bound: no event a read
 * needs is ever pruned). Anything else, including a failed commit, makes
 * the next commit write the JSON.
 */
export class SnapshotLags {
  private readonly lags = new Map<string, Lag>();
  private readonly maxLag: number;
  private readonly maxMs: number;
  private readonly maxEvents: number;

  constructor(options: SnapshotOptions = {}, maxEvents: number | undefined, private readonly now: () => number = Date.now) {
    const events = options.events ?? 100;
    const ms = options.ms ?? 1000;
    if (!(events >= 0) || !(ms >= 0)) throw new RangeError(`snapshots: events and ms must be numbers >= 0 (got ${events}, ${ms})`);
    this.maxLag = Math.min(events, maxEvents ?? Infinity);
    this.maxMs = ms;
    this.maxEvents = maxEvents ?? Infinity;
  }

  /**
   * True when a commit of `count` events on `expectedVersion` of `taskId` may log them without writing the task.
   * With `chars` (the characters of those events' JSON), also past the `events` and `ms` bounds while the
   * events logged since the snapshot, these included, are fewer characters than the snapshot (its size as
   * {@link wrote} was told) and within the retention bound: writing a large task's JSON again then costs
   * no more than logging its events did, however long the task grows (a stream's n-th chunk costs what its
   * first did).
   */
  mayAppend(taskId: string, expectedVersion: number, count: number, chars?: number): boolean {
    const lag = this.lags.get(taskId);
    if (lag === undefined || lag.version !== expectedVersion) return false;
    if (lag.events + count <= this.maxLag && this.now() - lag.since < this.maxMs) return true;
    return chars !== undefined && lag.chars + chars < lag.size && lag.events + count <= this.maxEvents;
  }

  /** A commit that only appended `count` events (of `chars` characters of JSON, when known) left `taskId` at `version`. */
  appended(taskId: string, version: number, count: number, chars = 0): void {
    const lag = this.lags.get(taskId)!;
    lag.version = version;
    lag.events += count;
    lag.chars += chars;
    this.touch(taskId, lag);
  }

  /**
   * A commit wrote the task of `taskId` at `version` (`size`: its JSON's characters, when the store uses the
   * size bound of {@link mayAppend}); `settled` ones are not followed (no appends follow a terminal state).
   */
  wrote(taskId: string, version: number, terminal: boolean, size = 0): void {
    if (terminal || this.maxLag === 0) this.lags.delete(taskId);
    else this.touch(taskId, { version, events: 0, chars: 0, size, since: this.now() });
  }

  /** Forgets `taskId`: its next commit writes the task (after a failed commit, or a delete). */
  forget(taskId: string): void {
    this.lags.delete(taskId);
  }

  private touch(taskId: string, lag: Lag): void {
    this.lags.delete(taskId);
    this.lags.set(taskId, lag);
    if (this.lags.size > MAX_FOLLOWED) this.lags.delete(this.lags.keys().next().value!);
  }
}
