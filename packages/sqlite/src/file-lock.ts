import { SyncDriver, type SyncDatabase } from './sync-driver.js';

/** Options of a SQLite file driver (`nodeSqlite`, `bunSqlite`). */
export interface SqliteFileOptions {
  /**
   * `'FULL'` (default): a commit is acknowledged once the WAL is synced to
   * the disk, so it survives a power loss too. `'NORMAL'`: it survives the
   * process being killed, not a power loss (faster: fewer syncs).
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

/**
 * Opens a SQLite file for one process: WAL mode, `synchronous` as asked, and
 * the file locked for this connection alone (`locking_mode = EXCLUSIVE`,
 * taken at once with a write transaction), so a second process fails here,
 * at open, with a message saying why, rather than racing the first one's
 * runs. The operating system drops the lock when the process ends, also
 * on `kill -9`.
 */
export function openSyncFile(name: string, path: string, open: () => SyncDatabase, options: SqliteFileOptions): SyncDriver {
  const synchronous = options.synchronous ?? 'FULL';
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new RangeError(`synchronous must be 'FULL' or 'NORMAL' (got ${String(synchronous)})`);
  const db = open();
  try {
    db.exec(`PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}`);
    db.exec('BEGIN IMMEDIATE; COMMIT');
  } catch (error) {
    db.close();
    const message = error instanceof Error ? error.message : String(error);
    if (/locked|busy/i.test(message)) {
      throw new Error(`The SQLite file ${path} is in use by another process: a Taskwire SQLite store serves one process at a time (stop the other one, or use @taskwire/postgres for several processes)`);
    }
    throw error;
  }
  return new SyncDriver(name, db);
}
