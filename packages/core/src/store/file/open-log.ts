import { open, unlink, type FileHandle } from 'node:fs/promises';
import { syncDirectory } from './compaction.js';
import { scanFrames } from './frame.js';
import type { LogFields } from '../../observability/logger.js';
import { writeFully } from './log-writer.js';

/** Where the file stores report what they repaired (no console in library code). */
export interface StoreLogger {
  warn(fields: LogFields, message?: string): void;
}

/** What kind of framed log {@link openLog} opens. Every Taskwire log starts with a header record `{"t":"h",...}`. */
export interface LogKind {
  /** How messages name the file: `task log`, `push log`. */
  readonly name: string;
  /** Replays one record (the header first); throws when it cannot read it. */
  readonly apply: (payload: string) => void;
  /** The header frame an empty log starts with. */
  readonly header: () => Buffer;
  /**
   * A file with no valid record at byte 0 is taken for a torn new log (and
   * emptied) only up to this many bytes; a larger one is refused as not a
   * log of this kind.
   */
  readonly maxTornHeaderBytes: number;
  /** File mode of a log it creates (default: 0o666 less the umask). */
  readonly mode?: number;
}

const HEADER_START = '{"t":"h"';

/**
 * Opens (creating if needed) the framed log at `path`, replays every record
 * through `kind.apply`, and returns the handle and the size appends continue
 * from. A leftover `<path>.compact` (a compaction cut short) is deleted. A
 * torn or corrupt tail is truncated away and reported through
 * `logger.warn`: it can only hold writes that were never acknowledged,
 * because every write resolves after its record is synced. A file that is
 * not a Taskwire log of this kind is refused and left as it is.
 */
export async function openLog(
  dir: string,
  path: string,
  kind: LogKind,
  fsync: boolean,
  logger: StoreLogger | undefined,
): Promise<{ handle: FileHandle; size: number }> {
  await unlink(`${path}.compact`).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  let created = false;
  const handle = await open(path, 'r+').catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    created = true;
    return open(path, 'w+', kind.mode);
  });
  try {
    const { size: fileSize } = await handle.stat();
    const scan = await scanFrames(handle, fileSize, (payload, offset) => {
      if (offset === 0 && !payload.startsWith(HEADER_START)) throw new Error(`${path} is not a Taskwire ${kind.name} (no header): move it away or use another directory`);
      try {
        kind.apply(payload);
      } catch (error) {
        throw new Error(
          `${path}: the record at byte ${offset} passes its checksum but cannot be read (${(error as Error).message}); ` +
            `it was written by a newer Taskwire, or the file was edited or is not a ${kind.name}: restore a backup, use a newer version, or move the file away`,
          { cause: error },
        );
      }
    });
    let size = scan.validLength;
    if (scan.problem !== undefined) {
      if (size === 0 && fileSize > kind.maxTornHeaderBytes) {
        throw new Error(`${path} is not a Taskwire ${kind.name} (${scan.problem} at byte 0): move it away or use another directory`);
      }
      logger?.warn({
        path,
        reason: scan.problem,
        keptBytes: size,
        droppedBytes: fileSize - size,
      }, `Taskwire: truncating a torn or corrupt tail of the ${kind.name} (writes in it were never acknowledged)`);
      await handle.truncate(size);
      if (fsync) await handle.sync();
    }
    if (size === 0) {
      const header = kind.header();
      await writeFully(handle, header, 0);
      size = header.length;
      if (fsync) await handle.sync();
      created = true;
    }
    if (created && fsync) await syncDirectory(dir);
    return { handle, size };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}
