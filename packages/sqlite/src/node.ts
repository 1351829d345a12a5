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
  // Loaded on call (from ESM and CommonJS alike), so that importing this module never fails on an older Node.
  const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  let sqlite: { DatabaseSync?: new (path: string) => SyncDatabase } | undefined;
  try {
    sqlite = builtin?.('node:sqlite') as typeof sqlite;
  } catch {
    sqlite = undefined;
  }
  const DatabaseSync = sqlite?.DatabaseSync;
  if (DatabaseSync === undefined) throw new Error(`node:sqlite is not available in Node ${process.versions.node}: @taskwire/sqlite/node needs Node 22.5 or later`);
  return openSyncFile(`node:sqlite ${path}`, path, () => new DatabaseSync(path), options);
}
