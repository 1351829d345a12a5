/**
 * `@taskwire/postgres`: Taskwire's stores on PostgreSQL (node-postgres).
 * A task store with versions and an event log, a push config store, the
 * schema's migrations (`migrate`, or the `taskwire-postgres` command), and
 * the coordinator that makes several replicas on one schema one cluster.
 */
export { TerminalTaskError } from './commit-refusal.js';
export { createPostgresTaskStore, PostgresTaskStore } from './task-store.js';
export type { PostgresTaskStoreOptions } from './task-store.js';
export type { EventRetentionOptions } from './retention.js';
export type { TaskCountOptions } from './task-counts.js';
export type { PostgresConnectionOptions } from './connection.js';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, redactUrl, UnnamedStatementClient } from './connection.js';
export { migrate, migrationStatus, SchemaNotReadyError } from './migrate.js';
export type { MigrationResult, MigrationStatus } from './migrate.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
export { CONTRACT_STEPS, recordContractSteps } from './contract-steps.js';
export type { Migration } from './migrations.js';
export { DEFAULT_SCHEMA } from './schema-name.js';
export { isUnavailable } from './database-errors.js';
export { createPostgresPushConfigStore, PostgresPushConfigStore } from './push-store.js';
export type { PostgresPushConfigStoreOptions } from './push-store.js';
export { createPostgresCoordinator, DEFAULT_CATCH_UP_INTERVAL_MS, DEFAULT_LEASE_TTL_MS, PostgresCoordinator } from './cluster/coordinator.js';
export type { PostgresCoordinatorOptions } from './cluster/coordinator.js';
