/**
 * `@taskwire/sqlite`: a task store and a push config store in SQLite over a
 * small driver interface. Drivers: `nodeSqlite` (`@taskwire/sqlite/node`,
 * Node 22.5+), `bunSqlite` (`@taskwire/sqlite/bun`) and `d1Driver` (this
 * entry: Cloudflare D1 bindings; no Node built-ins, so it runs in Workers).
 */
export type { SqliteDriver, SqliteResult, SqliteRow, SqliteStatement, SqliteValue } from './driver.js';
export { d1Driver, type D1DatabaseLike, type D1PreparedLike, type D1ResultLike } from './d1-driver.js';
export { migrateSqlite, schemaVersion, SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION, SqliteSchemaTooNewError, type SqliteMigration } from './schema.js';
export { createSqliteTaskStore, SqliteTaskStore, type SqliteTaskStoreOptions } from './task-store.js';
export { createSqlitePushConfigStore, PUSH_SECRETS_SEALED, SqlitePushConfigStore, type PushSecretSealer, type SqlitePushConfigStoreOptions } from './push-store.js';
