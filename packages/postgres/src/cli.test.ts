import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { cliCommand } from './cli-command.js';
import { describePostgres } from './database-test-kit.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { spawnSource } from './source-process-test-kit.js';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

/** Runs `taskwire-postgres` as a real process; resolves its exit code and output. */
function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnSource(CLI, args, { PATH: process.env.PATH ?? '', ...env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describePostgres('taskwire-postgres (the command)', (db) => {
  it('reports pending migrations, applies them once, then reports the schema up to date; never prints a password', async () => {
    const schema = `tw_cli_${randomBytes(5).toString('hex')}`;
    const url = new URL(db.url);
    url.password = 'hunter2-secret';
    const withPassword = url.toString();
    try {
      const before = await cli(['status', '--url', withPassword, '--schema', schema]);
      expect(before).toMatchObject({ code: 1, stderr: '' });
      expect(before.stdout).toMatch(new RegExp(`schema "${schema}": at version 0 of ${SCHEMA_VERSION}; pending:\\n${MIGRATIONS.map((m) => `  ${m.version}: .*\\n`).join('')}run: ${cliCommand()} migrate`));
      const first = await cli(['migrate', '--schema', schema], { DATABASE_URL: withPassword });
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(new RegExp(`migrated from version 0 to ${SCHEMA_VERSION}\\n  1: tasks and their event logs\\n  2: push notification configs and dead letters\\n`));
      const again = await cli(['migrate', '--url', withPassword, '--schema', schema]);
      expect(again.stdout).toMatch(`already at version ${SCHEMA_VERSION}, nothing to apply`);
      const after = await cli(['status', '--url', withPassword, '--schema', schema]);
      expect(after).toMatchObject({ code: 0 });
      expect(after.stdout).toMatch(`at version ${SCHEMA_VERSION}, up to date`);
      for (const run of [before, first, again, after]) expect(run.stdout + run.stderr).not.toMatch(/hunter2/);
      expect(before.stdout).toMatch(/postgres:\*\*\*@/);
    } finally {
      await db.pool.query(`DROP SCHEMA IF EXISTS ${quoteSchema(schema)} CASCADE`);
    }
  });

  it('contract records the contract steps once, and says which were already recorded', async () => {
    const schema = await db.schema('tw_cli');
    await db.pool.query(`DELETE FROM ${quoteSchema(schema)}.taskwire_contract_steps`);
    const first = await cli(['contract', '--url', db.url, '--schema', schema]);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toMatch(/recorded 2 contract step\(s\)\n  snapshot-logs: commits that only append.*\n  lease-heartbeats: replicas keep running tasks' leases alive by one heartbeat row each/);
    const again = await cli(['contract', '--url', db.url, '--schema', schema]);
    expect(again.stdout).toMatch(/every contract step was already recorded\n  snapshot-logs: .*\(already recorded\)\n  lease-heartbeats: .*\(already recorded\)/);
    expect((await cli(['--help'])).stdout).toMatch(/\n  contract  finish an upgrade/);
  });

  it('explains its usage on bad input, and says why a database cannot be reached', async () => {
    const missing = await cli(['migrate']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/pass --url \(or set DATABASE_URL\)[\s\S]*Usage: taskwire-postgres/);
    expect((await cli(['drop', '--url', db.url])).stderr).toMatch(/unknown command "drop"/);
    expect((await cli(['--help'])).stdout).toMatch(/Commands:\n  migrate/);
    const refused = await cli(['status', '--url', 'postgres://postgres@127.0.0.1:1/postgres']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/taskwire-postgres status .* failed: The task database is unreachable \(.*ECONNREFUSED.*\)/);
  });
});
