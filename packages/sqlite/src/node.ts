import { createRequire } from 'node:module';
import type { SqliteDriver } from './driver.js';
import { openSyncFile, type SqliteFileOptions } from './file-lock.js';
import type { SyncDatabase } from './sync-driver.js';

export type { SqliteFileOptions } from './file-lock.js';

/**
 * A {@link SqliteDriver} on Node's built-in `node:sqlite` (Node 22.5 and
 * later; no native build): a database file opened for this process alone
 * (see {@link SqliteFileOptions}), in WAL mode with `synchronous = FULL`,
 * so every acknowledged commit survives a `kill -9` and a power loss.
 * `':memory:'` opens a database that lives as long as the driver.
 * Throws an Error saying so when the file is held by another process, and
 * when this Node has no `node:sqlite`.
 */
export function nodeSqlite(path: string, options: SqliteFileOptions = {}): SqliteDriver {
  let DatabaseSync: new (path: string) => SyncDatabase;
  try {
    // Loaded on call, so that importing this module never fails on an older Node.
    ({ DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as { DatabaseSync: new (path: string) => SyncDatabase });
  } catch {
    throw new Error(`node:sqlite is not available in Node ${process.versions.node}: @taskwire/sqlite/node needs Node 22.5 or later`);
  }
  return openSyncFile(`node:sqlite ${path}`, path, () => new DatabaseSync(path), options);
}
