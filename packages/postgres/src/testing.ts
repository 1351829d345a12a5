/**
 * Test helpers for code on `@taskwire/postgres` (node + vitest only): a
 * suite that runs against a real PostgreSQL named by
 * `TASKWIRE_TEST_DATABASE_URL`, each in fresh schemas.
 */
export { DATABASE_URL_VARIABLE, describePostgres, MISSING_DATABASE, TestDatabase } from './database-test-kit.js';
