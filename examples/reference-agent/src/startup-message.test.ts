import { A2AError } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { migrationLine, startupFailure, tryLines } from './startup-message.js';

const postgres = { kind: 'postgres' as const, url: 'postgres://app:secret@db.example:5432/tasks', schema: 'taskwire', migrate: true, leaseTtlMs: undefined };

describe('what the agent prints at start', () => {
  it('an unreachable database: in start-up terms, with the URL (no password), not "retry the request"', () => {
    const error = new A2AError(
      'Internal',
      'The task database is unreachable (connect ECONNREFUSED 10.0.0.1:5432) while migrating the schema. Nothing was changed. Retry the request shortly.',
      { retryable: 'true', cause: 'database-unavailable' },
    );
    const text = startupFailure(error, postgres);
    expect(text).toBe(
      'Could not start the reference agent: the database at postgres://app:***@db.example:5432/tasks is unreachable (connect ECONNREFUSED 10.0.0.1:5432). ' +
        'Check that PostgreSQL is running there and that --store names it, then start the agent again.',
    );
  });

  it('a store behind a transaction-mode pooler without --direct-store: one more line naming the option', () => {
    const hint = "\nThe store URL seems to lead to a transaction-mode pooler (PgBouncer): give PostgreSQL's own URL as well, with --direct-store <url>.";
    const prepared = new Error('prepared statement "taskwire_1" already exists');
    expect(startupFailure(prepared, postgres)).toBe(`Could not start the reference agent: prepared statement "taskwire_1" already exists${hint}`);
    expect(startupFailure(new Error('prepared statement "taskwire_3" does not exist'), postgres)).toMatch(/--direct-store <url>\.$/);
    expect(startupFailure(prepared, { ...postgres, directUrl: 'postgres://db:5432/tasks' })).not.toContain('--direct-store');
    expect(startupFailure(new Error('the schema is not migrated'), postgres)).not.toContain('--direct-store');
  });

  it('any other error keeps its message', () => {
    expect(startupFailure(new Error('the schema is not migrated'), postgres)).toBe('Could not start the reference agent: the schema is not migrated');
  });

  it('--migrate: the steps it applied, or that there was nothing to apply', () => {
    const applied = [
      { version: 1, name: 'tasks and their event logs' },
      { version: 2, name: 'push configs' },
    ];
    expect(migrationLine({ schema: 'taskwire', from: 0, version: 2, latest: 2, pending: [], applied })).toBe(
      'schema "taskwire" migrated from version 0 to 2: applied 1 (tasks and their event logs), 2 (push configs)',
    );
    expect(migrationLine({ schema: 'taskwire', from: 2, version: 2, latest: 2, pending: [], applied: [] })).toBe('schema "taskwire" already at version 2: no migration to apply');
  });

  it('the Try: lines carry what the agent requires: nothing, the API key, or an OIDC token', () => {
    const at = { baseUrl: 'http://127.0.0.1:41241', jsonRpc: 'http://127.0.0.1:41241/a2a/jsonrpc' };
    expect(tryLines({ ...at, apiKey: undefined })).not.toMatch(/x-api-key|--api-key|Bearer/);
    const keyed = tryLines({ ...at, apiKey: 'sekret' });
    expect(keyed).toContain("-H 'x-api-key: sekret'");
    expect(keyed).toContain("--api-key 'sekret'");
    const oidc = tryLines({ ...at, apiKey: undefined, oidc: { issuer: 'https://login.example.com', audience: 'https://agents.example.com/a2a' } });
    expect(oidc).toContain('--client-id YOUR_CLIENT_ID --issuer https://login.example.com');
    expect(oidc).toContain('--resource https://agents.example.com/a2a');
    expect(oidc).toContain('-H "authorization: Bearer $TOKEN"');
  });
});
