import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { encodeFrame } from './frame.js';
import { writeFully, type LogWriter } from './log-writer.js';
import { headerPayload, snapshotPayload, type LiveState } from './records.js';

const CHUNK_BYTES = 1024 * 1024;

/** fsyncs a directory, so a rename or a new file in it survives a power loss. */
export async function syncDirectory(dir: string): Promise<void> {
  if (process.platform === 'win32') return; // directories cannot be opened for fsync there
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Thrown inside a compaction when the store is closing. */
export class CompactionAborted extends Error {
  override readonly name = 'CompactionAborted';
}

/** What {@link compactLog} works on. */
export interface CompactionTarget {
  readonly dir: string;
  readonly logPath: string;
  readonly writer: LogWriter;
  readonly state: LiveState;
  readonly fsync: boolean;
  readonly aborted: () => boolean;
}

/**
 * Rewrites the log as one snapshot record per live task, while commits go
 * on, and returns the new log's size. Crash-safe at every step:
 *
 * 1. Between two batches, start copying every later batch (the "tail").
 * 2. Write header + snapshot records to `<log>.compact`, in chunks (commits
 *    keep flowing; a snapshot taken mid-way is fine because replay skips
 *    commits the snapshot already holds), and fsync it.
 * 3. Between two batches: append the tail, fsync, rename over the log
 *    (atomic: the old log, with every acknowledged commit, stays whole until
 *    then), fsync the directory, and only then append to the new file. The
 *    rename drops the old log.
 *
 * A crash before the rename leaves `<log>.compact`, which open deletes; after
 * it, the new log is complete. A failure before the rename abandons the
 * compaction (the old log goes on); a failure after it fails the writer.
 */
export async function compactLog(target: CompactionTarget): Promise<number> {
  const { writer, state } = target;
  const tmpPath = `${target.logPath}.compact`;
  const tail: Buffer[] = [];
  let tmp: FileHandle | undefined;
  let renamed = false;
  try {
    tmp = await open(tmpPath, 'w');
    const out = tmp;
    await writer.exclusive(async () => {
      writer.tap = (batch) => tail.push(batch);
    });
    let size = 0;
    let chunk: Buffer[] = [encodeFrame(headerPayload())];
    let chunkBytes = chunk[0]!.length;
    const flush = async () => {
      if (target.aborted()) throw new CompactionAborted('the store is closing');
      await writeFully(out, Buffer.concat(chunk, chunkBytes), size);
      size += chunkBytes;
      chunk = [];
      chunkBytes = 0;
    };
    for (const [id, live] of state.tasks) {
      const frame = encodeFrame(snapshotPayload(id, live));
      chunk.push(frame);
      chunkBytes += frame.length;
      if (chunkBytes >= CHUNK_BYTES) await flush();
    }
    await flush();
    if (target.fsync) await out.datasync();
    await writer.exclusive(async () => {
      writer.tap = undefined;
      const rest = Buffer.concat(tail);
      await writeFully(out, rest, size);
      size += rest.length;
      if (target.fsync) await out.datasync();
      await rename(tmpPath, target.logPath);
      renamed = true;
      try {
        if (target.fsync) await syncDirectory(target.dir);
      } catch (error) {
        throw writer.fail(error);
      }
      const old = writer.swap(out, size);
      tmp = undefined;
      await old.close().catch(() => undefined);
    });
    return size;
  } catch (error) {
    writer.tap = undefined;
    await tmp?.close().catch(() => undefined);
    if (!renamed) await unlink(tmpPath).catch(() => undefined);
    throw error;
  }
}
