import { open, unlink, type FileHandle } from 'node:fs/promises';
import { syncDirectory } from './compaction.js';
import { encodeFrame, scanFrames } from './frame.js';
import { headerPayload, type LiveState } from './records.js';

/** Where the file store reports what it repaired (no console in library code). */
export interface StoreLogger {
  warn(message: string, meta?: object): void;
}

/** Past this size, a file with no valid first record is not a torn new log: refuse to touch it. */
const MAX_TORN_HEADER_BYTES = 4096;

/**
 * Opens (creating if needed) the log at `logPath`, replays it into `state`
 * and returns the handle and the size appends continue from. A leftover
 * `<log>.compact` (a compaction cut short) is deleted. A torn or corrupt
 * tail is truncated away, reported through `logger.warn`: it can only hold
 * records whose commit was never acknowledged, because every commit resolves
 * after its record is synced. A file that is not a Taskwire log is refused.
 */
export async function openLog(
  dir: string,
  logPath: string,
  state: LiveState,
  fsync: boolean,
  logger: StoreLogger | undefined,
): Promise<{ handle: FileHandle; size: number }> {
  await unlink(`${logPath}.compact`).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  let handle: FileHandle;
  let created = false;
  try {
    handle = await open(logPath, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    handle = await open(logPath, 'w+');
    created = true;
  }
  try {
    const { size: fileSize } = await handle.stat();
    let first = true;
    const scan = await scanFrames(handle, fileSize, (payload, offset) => {
      if (first && !payload.startsWith('{"t":"h"')) throw new Error(`${logPath} is not a Taskwire task log (no header): move it away or use another directory`);
      first = false;
      try {
        state.applyPayload(payload);
      } catch (error) {
        throw new Error(
          `${logPath}: the record at byte ${offset} passes its checksum but cannot be read (${(error as Error).message}); ` +
            'it was written by a newer Taskwire or the file was edited: restore a backup or use a newer version',
          { cause: error },
        );
      }
    });
    let size = scan.validLength;
    if (scan.problem !== undefined) {
      if (size === 0 && fileSize > MAX_TORN_HEADER_BYTES) {
        throw new Error(`${logPath} is not a Taskwire task log (${scan.problem} at byte 0): move it away or use another directory`);
      }
      logger?.warn('Taskwire file store: truncating a torn or corrupt tail of the log (commits in it were never acknowledged)', {
        path: logPath,
        reason: scan.problem,
        keptBytes: size,
        droppedBytes: fileSize - size,
      });
      await handle.truncate(size);
      if (fsync) await handle.sync();
    }
    if (size === 0) {
      const header = encodeFrame(headerPayload());
      await handle.write(header, 0, header.length, 0);
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
