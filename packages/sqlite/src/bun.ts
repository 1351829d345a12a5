import type { SqliteDriver } from './driver.js';
import { openSyncFile, type SqliteFileOptions } from './file-lock.js';
import type { SyncDatabase } from './sync-driver.js';

export type { SqliteFileOptions } from './file-lock.js';

declare const Bun: unknown;

/**
 * A {@link SqliteDriver} on Bun's built-in `bun:sqlite`: a database file
 * opened for this process alone (see {@link SqliteFileOptions}), in WAL
 * mode with `synchronous = FULL`. `':memory:'` opens a database that lives
 * as long as the driver. Throws when not run by Bun, and when the file is
 * held by another process.
 */
export async function bunSqlite(path: string, options: SqliteFileOptions = {}): Promise<SqliteDriver> {
  if (typeof Bun === 'undefined') throw new Error('bunSqlite needs Bun (bun:sqlite); on Node use nodeSqlite from @taskwire/sqlite/node');
  const specifier = 'bun:sqlite';
  const { Database } = (await import(/* @vite-ignore */ specifier)) as { Database: new (path: string) => SyncDatabase };
  return openSyncFile(`bun:sqlite ${path}`, path, () => new Database(path), options);
}
