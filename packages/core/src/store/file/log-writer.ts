import type { FileHandle } from 'node:fs/promises';

const MAX_BATCH_BYTES = 8 * 1024 * 1024;

interface AppendJob {
  readonly kind: 'append';
  readonly frame: Buffer;
  readonly onDurable: () => void;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}
interface ExclusiveJob {
  readonly kind: 'exclusive';
  readonly fn: () => Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}
type Job = AppendJob | ExclusiveJob;

/** Counters of a {@link LogWriter}. */
export interface LogWriterStats {
  /** Records appended (acknowledged). */
  appends: number;
  /** Writes made: each carries one or more records (group commit). */
  batches: number;
  /** fsync (fdatasync) calls on the log. */
  fsyncs: number;
  /** Bytes appended (compaction's rewrites not included). */
  bytes: number;
}

/** Writes `data` at `position`, however many calls it takes. */
export async function writeFully(handle: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

/**
 * The append side of a log file, with group commit: records appended while a
 * write + fsync is under way are written together by the next one, so N
 * concurrent commits cost far fewer than N fsyncs. A record's `onDurable`
 * runs once it is on disk, before the next batch starts and before its
 * promise resolves. `exclusive` runs a function between batches (compaction
 * uses it). After any write or fsync error the writer is failed for good:
 * the tail of the file is uncertain, so nothing more may be appended to it.
 */
export class LogWriter {
  readonly stats: LogWriterStats = { appends: 0, batches: 0, fsyncs: 0, bytes: 0 };
  /** When set, receives every batch after it is written (compaction copies them). */
  tap: ((batch: Buffer) => void) | undefined;
  private readonly queue: Job[] = [];
  private running = false;
  private failure: Error | undefined;

  constructor(
    private handle: FileHandle,
    /** Bytes in the file; the next batch is written here. */
    public size: number,
    private readonly fsync: boolean,
    private readonly describe: string,
  ) {}

  /** The error that failed the writer, if one did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  /** Appends one framed record; resolves once it is durable (written and, with `fsync`, synced). */
  append(frame: Buffer, onDurable: () => void): Promise<void> {
    return this.enqueue((resolve, reject) => ({ kind: 'append', frame, onDurable, resolve, reject }));
  }

  /** Runs `fn` after every job queued before it and before any queued after it. */
  exclusive(fn: () => Promise<void>): Promise<void> {
    return this.enqueue((resolve, reject) => ({ kind: 'exclusive', fn, resolve, reject }));
  }

  /** Points the writer at another file (compaction's new log); returns the old handle. */
  swap(handle: FileHandle, size: number): FileHandle {
    const old = this.handle;
    this.handle = handle;
    this.size = size;
    return old;
  }

  /** Marks the writer failed: every queued and future append rejects. */
  fail(cause: unknown): Error {
    if (this.failure) return this.failure;
    const reason = cause instanceof Error ? cause.message : String(cause);
    this.failure = new Error(
      `The file task store could not write ${this.describe} (${reason}); what is on disk after the last acknowledged commit is uncertain: close the store and open the directory again`,
      { cause },
    );
    for (const job of this.queue.splice(0)) job.reject(this.failure);
    return this.failure;
  }

  /** Resolves once every job queued before the call is done (never rejects). */
  drain(): Promise<void> {
    return this.exclusive(async () => undefined).catch(() => undefined);
  }

  /** Waits for queued jobs, then closes the file. */
  async close(): Promise<void> {
    await this.drain();
    await this.handle.close();
  }

  private enqueue(make: (resolve: () => void, reject: (e: Error) => void) => Job): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.queue.push(make(resolve, reject));
      if (!this.running) {
        this.running = true;
        // A microtask later, so every commit made in the same tick joins the first batch.
        queueMicrotask(() => void this.loop());
      }
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0 && !this.failure) {
      const head = this.queue[0]!;
      if (head.kind === 'exclusive') {
        this.queue.shift();
        await head.fn().then(head.resolve, head.reject);
        continue;
      }
      const batch: AppendJob[] = [];
      let bytes = 0;
      for (const job of this.queue) {
        if (job.kind !== 'append' || (batch.length > 0 && bytes + job.frame.length > MAX_BATCH_BYTES)) break;
        batch.push(job);
        bytes += job.frame.length;
      }
      this.queue.splice(0, batch.length);
      const data = batch.length === 1 ? batch[0]!.frame : Buffer.concat(batch.map((j) => j.frame), bytes);
      try {
        await writeFully(this.handle, data, this.size);
        this.size += data.length;
        if (this.fsync) {
          await this.handle.datasync();
          this.stats.fsyncs++;
        }
      } catch (error) {
        const failure = this.fail(error);
        for (const job of batch) job.reject(failure);
        break;
      }
      this.stats.batches++;
      this.stats.appends += batch.length;
      this.stats.bytes += data.length;
      this.tap?.(data);
      for (const job of batch) {
        try {
          job.onDurable();
          job.resolve();
        } catch (error) {
          // The record is on disk but memory did not take it: only a reopen is consistent now.
          job.reject(this.fail(error));
        }
      }
    }
    this.running = false;
  }
}
