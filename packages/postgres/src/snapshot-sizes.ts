import { SnapshotLags, type SnapshotOptions } from '@taskwire/core';

/** Tasks whose snapshot size this store follows at most, as core's `SnapshotLags` (the least recently committed are forgotten: their next commit writes the JSON). */
const MAX_FOLLOWED = 10_000;

/** A snapshot's size, and what was logged after it. */
interface Size {
  /** Characters of the snapshot's JSON. */
  readonly size: number;
  /** Characters of JSON of the events logged after it. */
  logged: number;
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
  /** The configured bounds. */
  private readonly bounded: SnapshotLags;
  /** The versions and event counts alone: only the retention bound. */
  private readonly versions: SnapshotLags;
  private readonly sizes = new Map<string, Size>();
  /** `events: 0`: the JSON at every commit (no size is followed). */
  private readonly off: boolean;

  constructor(options: SnapshotOptions = {}, maxEvents: number | undefined, now: () => number = Date.now) {
    this.bounded = new SnapshotLags(options, maxEvents, now);
    this.versions = new SnapshotLags({ events: Infinity, ms: Infinity }, maxEvents, now);
    this.off = options.events === 0 || maxEvents === 0;
  }

  /** True when a commit of `count` events (`chars` characters of JSON) on `expectedVersion` of `taskId` may log them without writing the task. */
  mayAppend(taskId: string, expectedVersion: number, count: number, chars: number): boolean {
    if (this.bounded.mayAppend(taskId, expectedVersion, count)) return true;
    const size = this.sizes.get(taskId);
    return size !== undefined && size.logged + chars <= size.size && this.versions.mayAppend(taskId, expectedVersion, count);
  }

  /** A commit that only appended `count` events (`chars` characters of JSON) left `taskId` at `version`. */
  appended(taskId: string, version: number, count: number, chars: number): void {
    const size = this.sizes.get(taskId);
    if (size === undefined) return this.forget(taskId);
    this.bounded.appended(taskId, version, count);
    this.versions.appended(taskId, version, count);
    size.logged += chars;
    this.follow(taskId, size);
  }

  /** A commit wrote the task of `taskId` (`size` characters of JSON) at `version`; `terminal` ones are not followed (no appends follow). */
  wrote(taskId: string, version: number, terminal: boolean, size: number): void {
    this.bounded.wrote(taskId, version, terminal);
    this.versions.wrote(taskId, version, terminal);
    if (terminal || this.off) this.sizes.delete(taskId);
    else this.follow(taskId, { size, logged: 0 });
  }

  /** Forgets `taskId`: its next commit writes the task (after a failed commit, or a delete). */
  forget(taskId: string): void {
    this.bounded.forget(taskId);
    this.versions.forget(taskId);
    this.sizes.delete(taskId);
  }

  /** Makes `taskId` the most recently followed task, forgetting the least recently followed past the bound. */
  private follow(taskId: string, size: Size): void {
    this.sizes.delete(taskId);
    this.sizes.set(taskId, size);
    if (this.sizes.size > MAX_FOLLOWED) this.forget(this.sizes.keys().next().value!);
  }
}
