import { A2AError } from '@taskwire/core';
import { redactUrl, type MigrationResult } from '@taskwire/postgres';
import type { AgentOptions } from './options.js';

/**
 * What to print when the agent cannot start. A database that cannot be
 * reached is said in terms of starting the process (the store's own error
 * speaks to a request, to retry shortly); any other error keeps its
 * message.
 */
export function startupFailure(error: unknown, store: AgentOptions['store']): string {
  const message = error instanceof Error ? error.message : String(error);
  if (store.kind !== 'postgres' || !A2AError.is(error) || error.metadata.cause !== 'database-unavailable') return `Could not start the reference agent: ${message}`;
  const reason = /unreachable \((.*)\) while/s.exec(message)?.[1] ?? message;
  return (
    `Could not start the reference agent: the database at ${redactUrl(store.url)} is unreachable (${reason}). ` +
    'Check that PostgreSQL is running there and that --store names it, then start the agent again.'
  );
}

/** The line `--migrate` prints: what it applied to the schema, or that there was nothing to apply. */
export function migrationLine(result: MigrationResult): string {
  if (result.applied.length === 0) return `schema "${result.schema}" already at version ${result.version}: no migration to apply`;
  const steps = result.applied.map((m) => `${m.version} (${m.name})`).join(', ');
  return `schema "${result.schema}" migrated from version ${result.from} to ${result.version}: applied ${steps}`;
}
