import { randomUUID } from 'node:crypto';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock file's name inside a store directory. */
export const LOCK_FILE = 'LOCK';

/**
 * The store directory is open in another process (or another store in this
 * process). `pid` is the holder's process id when known.
 */
export class StoreLockedError extends Error {
  override readonly name = 'StoreLockedError';
  constructor(
    readonly directory: string,
    readonly pid: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
  readonly since: string;
}

/** A held lock; `release` removes it if it is still ours. */
export interface DirectoryLock {
  release(): Promise<void>;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's holder; `undefined` when the file is gone, `null` when unreadable (a crash while it was written). */
async function readHolder(path: string): Promise<Holder | null | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Holder;
    return typeof value.pid === 'number' && typeof value.token === 'string' ? value : null;
  } catch {
    return null;
  }
}

function lockedError(dir: string, holder: Holder): StoreLockedError {
  const lockPath = join(dir, LOCK_FILE);
  if (holder.pid === process.pid && holder.host === hostname()) {
    return new StoreLockedError(
      dir,
      holder.pid,
      `Task store ${dir} is already open in this process (pid ${holder.pid}, since ${holder.since}): close the other FileTaskStore on it first, or share that one`,
    );
  }
  const where = holder.host === hostname() ? '' : ` on host ${holder.host}`;
  return new StoreLockedError(
    dir,
    holder.pid,
    `Task store ${dir} is locked by process ${holder.pid}${where} (since ${holder.since}): only one process can use a store directory at a time. ` +
      `Stop that process or use another directory; if that process is not running any more, delete ${lockPath}`,
  );
}

/**
 * Takes the directory's lock file, or throws {@link StoreLockedError} when a
 * live process (this one included) holds it. A lock left by a dead process
 * on this host (or an unreadable one) is taken over. The lock file is
 * created whole with `link`, so nobody ever sees it half written.
 */
export async function acquireLock(dir: string, onTakeover?: (previous: Holder | null) => void): Promise<DirectoryLock> {
  const lockPath = join(dir, LOCK_FILE);
  const me: Holder = { pid: process.pid, host: hostname(), token: randomUUID(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 5; attempt++) {
    const tmp = join(dir, `${LOCK_FILE}.${me.token}.tmp`);
    await writeFile(tmp, JSON.stringify(me));
    try {
      await link(tmp, lockPath);
      return { release: () => releaseLock(lockPath, me.token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
    const holder = await readHolder(lockPath);
    if (holder === undefined) continue;
    if (holder !== null && (holder.host !== me.host || isAlive(holder.pid))) throw lockedError(dir, holder);
    // Stale: move it aside atomically, then make sure what we moved is the stale lock we judged.
    const aside = join(dir, `${LOCK_FILE}.${me.token}.stale`);
    try {
      await rename(lockPath, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readHolder(aside);
    if (moved && moved.token !== holder?.token && isAlive(moved.pid)) {
      // Another process took the stale lock over in between: give its lock back.
      await link(aside, lockPath).catch(() => undefined);
      await unlink(aside).catch(() => undefined);
      throw lockedError(dir, moved);
    }
    await unlink(aside).catch(() => undefined);
    onTakeover?.(holder);
  }
  throw new StoreLockedError(dir, undefined, `Could not lock task store ${dir}: other processes keep taking it; retry, or check what else opens it`);
}

async function releaseLock(lockPath: string, token: string): Promise<void> {
  const holder = await readHolder(lockPath).catch(() => undefined);
  if (holder && holder.token === token) await unlink(lockPath).catch(() => undefined);
}
