import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { migrate } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { finalTasks, send } from './support/fault-kit.js';
import { storedLogProblems } from './support/logs.js';

const README = fileURLToPath(new URL('../../postgres/README.md', import.meta.url));
const LEASE_TTL_MS = 4_000;

/** The grant statements of the postgres README, as written there (for role `taskwire_app`, schema `taskwire`, owner `taskwire_owner`). */
async function readmeGrants(): Promise<string> {
  const found = /<!-- replica role grants[^>]*-->\n```sql\n([\s\S]*?)```/.exec(await readFile(README, 'utf8'));
  if (!found) throw new Error('the postgres README has no replica role grants block');
  return found[1]!;
}

describePostgres('replicas running as the role the README grants (rows only: no DDL), on a schema its owner migrated', (db) => {
  const suffix = randomBytes(4).toString('hex');
  const database = `tw_role_${suffix}`;
  const app = `taskwire_app_${suffix}`;
  const owner = `taskwire_owner_${suffix}`;
  const url = (role: string, password: string) => {
    const u = new URL(db.url);
    u.username = role;
    u.password = password;
    u.pathname = `/${database}`;
    return u.toString();
  };
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    await db.pool.query(`CREATE ROLE ${owner} LOGIN PASSWORD 'owner-pw'`);
    await db.pool.query(`CREATE DATABASE ${database} OWNER ${owner}`);
    await migrate({ connectionString: url(owner, 'owner-pw'), schema: 'taskwire' });
    const grants = (await readmeGrants()).replaceAll('taskwire_app', app).replaceAll('taskwire_owner', owner).replace("'change-me'", "'app-pw'");
    const asOwner = new pg.Client({ connectionString: url(owner, 'owner-pw') });
    await asOwner.connect();
    try {
      // CREATE ROLE needs a superuser (or CREATEROLE): the rest runs as the schema's owner, as an operator would.
      const [createRole, ...rest] = grants.split(';\n').filter((s) => s.trim() !== '');
      await db.pool.query(createRole!);
      await asOwner.query(rest.join(';\n'));
    } finally {
      await asOwner.end();
    }
  }, 60_000);

  afterAll(async () => {
    await cluster?.close();
    await db.pool.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await db.pool.query(`DROP ROLE IF EXISTS ${app}`);
    await db.pool.query(`DROP ROLE IF EXISTS ${owner}`);
  });

  it('two replicas start with --migrate, answer, and one takes over (and settles) the running task of the other when it is killed', async () => {
    cluster = await Cluster.start({ size: 2, databaseUrl: url(app, 'app-pw'), schema: 'taskwire', args: ['--lease-ttl-ms', String(LEASE_TTL_MS)] });
    const echoed = await send(cluster.transport('JSON-RPC', 0), 'echo as the app role', { blocking: true });
    expect(echoed.status.state).toBe('TASK_STATE_COMPLETED');
    const running = await send(cluster.transport('JSON-RPC', 1), 'slow 30 100');
    await cluster.kill(1);
    const settled = await finalTasks(cluster.transport('JSON-RPC', 0), [echoed.id, running.id], LEASE_TTL_MS * 6, true);
    expect(settled.get(echoed.id)?.status.state).toBe('TASK_STATE_COMPLETED');
    // Taken over on lease expiry by the replica left (its coordinator runs as the app role too) and settled as a crash.
    const orphan = settled.get(running.id);
    expect(orphan?.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(orphan?.status.message)).toMatch(/process stopped while this task was running/);
    expect(await storedLogProblems(url(app, 'app-pw'), 'taskwire')).toEqual([]);
  });

  it('the app role cannot change the schema (it holds no more than the README grants)', async () => {
    const asApp = new pg.Client({ connectionString: url(app, 'app-pw') });
    await asApp.connect();
    try {
      await expect(asApp.query('CREATE TABLE taskwire.intruder (x int)')).rejects.toThrow(/permission denied/);
      await expect(asApp.query('ALTER TABLE taskwire.tasks ADD COLUMN intruder int')).rejects.toThrow(/must be owner/);
    } finally {
      await asApp.end();
    }
  });

  it('a step pending: the app role is refused, told to migrate as the owner, and nothing is changed', async () => {
    const asOwner = new pg.Client({ connectionString: url(owner, 'owner-pw') });
    await asOwner.connect();
    try {
      await asOwner.query(`CREATE SCHEMA taskwire_next; GRANT USAGE ON SCHEMA taskwire_next TO ${app}`);
      await expect(migrate({ connectionString: url(app, 'app-pw'), schema: 'taskwire_next' })).rejects.toThrow(/needs its owner's privileges[\s\S]*run the migration as the owner/);
      const { rows } = await asOwner.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'taskwire_next'`);
      expect(rows[0].n).toBe(0);
    } finally {
      await asOwner.end();
    }
  });
});
