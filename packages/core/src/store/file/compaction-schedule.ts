import { compactLog, CompactionAborted, type CompactionTarget } from './compaction.js';
import type { StoreLogger } from './open-log.js';

/** What a {@link CompactionSchedule} needs besides its {@link CompactionTarget}. */
export interface CompactionScheduleOptions {
  /** Log size below which no compaction starts, and how much the log must grow after a failed one before the next try. */
  readonly minBytes: number;
  /** A compaction starts once the log is this many times the live data (in bytes). */
  readonly ratio: number;
  /** Where a failed background compaction is reported. */
  readonly logger?: StoreLogger | undefined;
}

/**
 * When a file store's log is compacted: at most one compaction at a time,
 * started in the background once the log has outgrown both `minBytes` and
 * `ratio` times the live data (as measured in bytes by the last
 * compaction), or on request. A failed background compaction is logged and
 * retried only after the log has grown by another `minBytes`; one aborted
 * because the store is closing is no failure.
 */
export class CompactionSchedule {
  private current: Promise<void> | undefined;
  private count = 0;
  private nextAt: number;
  /** Log bytes per estimated live character, measured by the last compaction (UTF-8 can take more than one byte). */
  private bytesPerChar = 1;

  /**
   * @param target the log, its writer and live state, and when to abort
   * @param options thresholds and the logger
   */
  constructor(
    private readonly target: CompactionTarget,
    private readonly options: CompactionScheduleOptions,
  ) {
    this.nextAt = options.minBytes;
  }

  /** The compaction under way (it never rejects), if any. */
  get running(): Promise<void> | undefined {
    return this.current;
  }

  /** How many compactions have completed. */
  get completed(): number {
    return this.count;
  }

  /** Starts a compaction in the background if the log has grown enough and none is running (nor is the store closing or its writer failed). */
  maybe(): void {
    const { writer, state } = this.target;
    if (this.current || this.target.aborted() || writer.failed) return;
    const size = writer.size;
    if (size < this.nextAt || size < this.options.ratio * this.bytesPerChar * state.liveChars) return;
    this.start().catch((error: unknown) => {
      this.options.logger?.warn({
        directory: this.target.dir,
        error: error instanceof Error ? error.message : String(error),
      }, 'Taskwire file store: compaction failed; the log keeps growing and compaction is retried later');
    });
  }

  /** Compacts now, after the compaction under way if any; rejects if it fails. */
  async now(): Promise<void> {
    while (this.current) await this.current;
    await this.start();
  }

  private start(): Promise<void> {
    const { minBytes } = this.options;
    const run = compactLog(this.target).then(
      (size) => {
        this.count++;
        this.nextAt = minBytes;
        this.bytesPerChar = Math.max(1, size / Math.max(1, this.target.state.liveChars));
      },
      (error: unknown) => {
        // Retry only after the log has grown by another minBytes, not on every commit.
        this.nextAt = this.target.writer.size + minBytes;
        if (!(error instanceof CompactionAborted)) throw error;
      },
    );
    this.current = run.finally(() => (this.current = undefined)).catch(() => undefined);
    return run;
  }
}
