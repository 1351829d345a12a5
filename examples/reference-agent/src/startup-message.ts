import { A2AError } from '@taskwire/core';
import { redactUrl, type MigrationResult } from '@taskwire/postgres';
import type { AgentOptions } from './options.js';

/**
 * What a transaction-mode pooler (PgBouncer) answers a client that talks to
 * it as to PostgreSQL: it refuses session settings sent at connection time,
 * or the server connection it lends already has (or lacks) the client's
 * named prepared statements.
 */
const POOLER_SIGNS = /unsupported startup parameter|prepared statement "taskwire_\d+" (already exists|does not exist)/;

/** The line that names --direct-store, when a postgres store without it failed as one behind a pooler fails. */
function poolerHint(message: string, store: AgentOptions['store']): string {
  if (store.kind !== 'postgres' || store.directUrl !== undefined || !POOLER_SIGNS.test(message)) return '';
  return '\nThe store URL seems to lead to a transaction-mode pooler (PgBouncer): give PostgreSQL\'s own URL as well, with --direct-store <url>.';
}

/**
 * What to print when the agent cannot start. A database that cannot be
 * reached is said in terms of starting the process (the store's own error
 * speaks to a request, to retry shortly); any other error keeps its
 * message. A postgres store without `--direct-store` that fails the way a
 * transaction-mode pooler makes it fail gets one more line naming that
 * option.
 */
export function startupFailure(error: unknown, store: AgentOptions['store']): string {
  const message = error instanceof Error ? error.message : String(error);
  return startupText(error, message, store) + poolerHint(message, store);
}

function startupText(error: unknown, message: string, store: AgentOptions['store']): string {
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

/** What {@link tryLines} needs of the running agent and its options. */
export interface TryTarget {
  /** The agent's own base URL (`http://127.0.0.1:41241`). */
  readonly baseUrl: string;
  /** Its JSON-RPC endpoint. */
  readonly jsonRpc: string;
  readonly apiKey: string | undefined;
  readonly oidc?: { readonly issuer: string; readonly audience: string } | undefined;
}

/**
 * The "Try:" lines printed at start: a `curl` of the JSON-RPC endpoint and
 * a CLI call from the clone, each carrying what the agent requires: the API
 * key; with an OpenID provider, a client-credentials token for the
 * audience (the CLI gets it from the issuer; `curl` takes it from `$TOKEN`,
 * for which the lines say how to get one). Calls without them would only be refused.
 */
export function tryLines(target: TryTarget): string {
  const body = `-d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"echo hello"}]}}}'`;
  const curl = (auth: string) => `  curl -s ${target.jsonRpc} -H 'content-type: application/json' -H 'A2A-Version: 1.0'${auth} \\\n    ${body}`;
  if (target.oidc === undefined) {
    const key = target.apiKey ? ` -H 'x-api-key: ${target.apiKey}'` : '';
    const cliKey = target.apiKey ? ` --api-key '${target.apiKey}'` : '';
    return `${curl(key)}\n  npm run taskwire -- send ${target.baseUrl} "provide a sunset quote"${cliKey}`;
  }
  const { issuer, audience } = target.oidc;
  return `  # every call needs a token from ${issuer} for ${audience} (a client of that provider, client credentials):
  export TASKWIRE_CLIENT_SECRET=YOUR_CLIENT_SECRET
  npm run taskwire -- send ${target.baseUrl} "provide a sunset quote" --client-id YOUR_CLIENT_ID --issuer ${issuer} \\
    --resource ${audience} --scope 'tasks:read tasks:write'
  # or with a token you already have (TOKEN=...):
${curl(` -H "authorization: Bearer $TOKEN"`)}`;
}
