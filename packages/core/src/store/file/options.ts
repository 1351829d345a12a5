import type { SnapshotOptions } from '../snapshot-lag.js';
import type { TaskBoundsOptions } from '../task-bounds.js';
import type { StoreLogger } from './open-log.js';

/** Default of {@link FileTaskStoreOptions.compactMinBytes}: 16 MiB. */
export const DEFAULT_COMPACT_MIN_BYTES = 16 * 1024 * 1024;

/**
 * Options of `FileTaskStore.open`. The bounds work as in the memory store
 * (`maxTasks`, `terminalTtlMs`, `now`), except that there is no bound by
 * default: an evicted task's deletion is logged, and a terminal task's age
 * after a reopen counts from its status timestamp.
 */
export interface FileTaskStoreOptions extends TaskBoundsOptions {
  /**
   * fsync every commit batch (default true). `false` is for benchmarks only:
   * a process crash still loses nothing, but an OS crash or power loss may
   * lose acknowledged commits.
   */
  readonly fsync?: boolean;
  /**
   * Events kept per task in memory and in compacted logs, newest first
   * (default 1,000), as in the memory store.
   */
  readonly maxEventsPerTask?: number;
  /** Told about repairs (a truncated torn tail, a stale lock taken over) and failed compactions. */
  readonly logger?: StoreLogger;
  /** The log is compacted only once it is at least this big (default 16 MiB). */
  readonly compactMinBytes?: number;
  /** ...and at least this many times the size of the live data (default 2). */
  readonly compactRatio?: number;
  /**
   * How far a streaming task's logged JSON may lag its events (default: 100
   * events or 1 s, and past those for as long as the events logged since
   * the JSON are fewer characters than it, within `maxEventsPerTask`
   * events): a commit that only appends (`CommitRequest.appendOnly`: a
   * chunk, a status update in the same state) logs its events alone in
   * between, so each costs the same however long the task grew; reads
   * reduce the events after the JSON onto it. `{ events: 0 }` logs the
   * task with every commit.
   */
  readonly snapshots?: SnapshotOptions;
}

/** Counters of a `FileTaskStore`, for tests and monitoring. */
export interface FileTaskStoreStats {
  readonly tasks: number;
  /** Records appended since open (commits and deletes). */
  readonly commits: number;
  /** Writes made for them: fewer than `commits` when concurrent commits were grouped. */
  readonly batches: number;
  readonly fsyncs: number;
  /** Bytes appended to the log since open (compaction's rewrites not included). */
  readonly appendedBytes: number;
  /** Current size of the log file. */
  readonly logBytes: number;
  /** Estimated size of a snapshot of the live data. */
  readonly liveBytes: number;
  readonly compactions: number;
}

