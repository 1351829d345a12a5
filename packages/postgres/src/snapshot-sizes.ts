import type { SnapshotOptions } from '@taskwire/core';

/** Tasks whose snapshot this store follows at most (the least recently committed are forgotten: their next commit writes the JSON). */
const MAX_FOLLOWED = 10_000;

interface Lag {
  /** The version the row is at after this store's last commit of it. */
  version: number;
  /** Events logged after the snapshot. */
  events: number;
  /** Characters of JSON of those events. */
  logged: number;
  /** Characters of the snapshot's JSON. */
  readonly size: number;
  /** When the snapshot was written (ms). */
  readonly since: number;
}

/**
 * When a commit that only appends (`CommitRequest.appendOnly`) may log its
 * events without rewriting the task's JSON, per task, as far as one store
 * knows of the snapshots it wrote. It may while the row is still at the
 * version this store's last commit left (no other writer came in between)
 * and the events logged since the snapshot stay within the retention bound
 * (`maxEvents`: no event a read needs is ever pruned), and either
 *
 * - within `options` (`events` events and `ms` milliseconds, 100 and 1,000 by
 *   default, as core's `SnapshotLags`), or
 * - within the snapshot's own size: the JSON of the events logged since is
 *   no longer than the snapshot's JSON.
 *
 * The second bound makes a long task's snapshot rarer as it grows: the
 * task's JSON is written again only once as much JSON was logged after it,
 * so rewriting it costs at most about as much as logging the events did,
 * per event, however long the task is (a streamed answer's cost grows with
 * its length, not with its square); and a read reduces at most the
 * snapshot's size again of events onto it, so it costs in proportion to
 * the task it returns. `events: 0` writes the JSON at every commit.
 */
export class SnapshotSizes {
  private readonly lags = new Map<string, Lag>();
  private readonly maxLag: number;
  private readonly maxMs: number;
  private readonly maxEvents: number;

  constructor(options: SnapshotOptions = {}, maxEvents: number | undefined, private readonly now: () => number = Date.now) {
    const events = options.events ?? 100;
    const ms = options.ms ?? 1000;
    if (!(events >= 0) || !(ms >= 0)) throw new RangeError(`snapshots: events and ms must be numbers >= 0 (got ${events}, ${ms})`);
    this.maxEvents = maxEvents ?? Infinity;
    this.maxLag = Math.min(events, this.maxEvents);
    this.maxMs = ms;
  }

  /** True when a commit of `count` events (`chars` characters of JSON) on `expectedVersion` of `taskId` may log them without writing the task. */
  mayAppend(taskId: string, expectedVersion: number, count: number, chars: number): boolean {
    const lag = this.lags.get(taskId);
    if (lag === undefined || lag.version !== expectedVersion || this.maxLag === 0) return false;
    const events = lag.events + count;
    if (events > this.maxEvents) return false;
    return (events <= this.maxLag && this.now() - lag.since < this.maxMs) || lag.logged + chars <= lag.size;
  }

  /** A commit that only appended `count` events (`chars` characters of JSON) left `taskId` at `version`. */
  appended(taskId: string, version: number, count: number, chars: number): void {
    const lag = this.lags.get(taskId);
    if (lag === undefined) return;
    lag.version = version;
    lag.events += count;
    lag.logged += chars;
    this.touch(taskId, lag);
  }

  /** A commit wrote the task of `taskId` (`size` characters of JSON) at `version`; `terminal` ones are not followed (no appends follow). */
  wrote(taskId: string, version: number, terminal: boolean, size: number): void {
    if (terminal || this.maxLag === 0) this.lags.delete(taskId);
    else this.touch(taskId, { version, events: 0, logged: 0, size, since: this.now() });
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
