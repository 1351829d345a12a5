import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator, type PostgresCoordinator, type PostgresCoordinatorOptions } from './coordinator.js';
import { insertTask, recordingHost, recordingLogger, until } from './coordinator-test-kit.js';

describePostgres('replica names: a predecessor\'s leases are taken at start-up only with proof that it is gone', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  let store: PostgresTaskStore;
  const open: PostgresCoordinator[] = [];
  const clients: pg.Client[] = [];
  const coordinator = async (options: Omit<PostgresCoordinatorOptions, 'store'> = {}) => {
    const c = await createPostgresCoordinator({ store, ...options });
    open.push(c);
    return c;
  };
  const holderOf = async (id: string) => (await db.pool.query(`SELECT lease_holder FROM ${S}.tasks WHERE id = $1`, [id])).rows[0].lease_holder as string;

  beforeEach(async () => {
    schema = await db.schema('tw_names');
    S = quoteSchema(schema);
    store = await createPostgresTaskStore({ pool: db.pool, schema });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await Promise.all(clients.splice(0).map((c) => c.end()));
    await store.close();
    await db.drop(schema);
  });

  it('a second live process under a name in use is refused the name, says so, and settles none of the first one\'s live tasks', async () => {
    const first = await coordinator({ replicaName: 'web' });
    expect(first.holdsName).toBe(true);
    await insertTask(db.pool, S, 'running-on-first', 'TASK_STATE_WORKING', { holder: first.processId, expiresInMs: 60_000 });
    const logger = recordingLogger();
    const second = await coordinator({ replicaName: 'web', logger });
    expect(second.holdsName).toBe(false);
    expect(logger.errors).toEqual([expect.stringMatching(/another live process uses the replica name "web"/)]);
    const host = recordingHost();
    second.attach(host);
    expect(await second.recover()).toEqual([]);
    expect(await holderOf('running-on-first')).toBe(first.processId);
    // The same name on another schema is another cluster's replica.
    const elsewhere = await db.schema('tw_names_other');
    const otherStore = await createPostgresTaskStore({ pool: db.pool, schema: elsewhere });
    const other = await createPostgresCoordinator({ store: otherStore, replicaName: 'web' });
    expect(other.holdsName).toBe(true);
    await other.close();
    await otherStore.close();
    await db.drop(elsewhere);
  });

  it('a predecessor that still has a session (its LISTEN connection reconnecting) is not gone: its leases stay; one without any is taken at once', async () => {
    // As if process web#00aa.. were alive with its listener down: its background pool's session is still there.
    const alive = new pg.Client({ connectionString: db.url, application_name: 'taskwire cluster 00aa00aa00aa00aa web' });
    await alive.connect();
    clients.push(alive);
    await insertTask(db.pool, S, 'of-a-live-one', 'TASK_STATE_WORKING', { holder: 'web#00aa00aa00aa00aa', expiresInMs: 60_000 });
    await insertTask(db.pool, S, 'of-a-dead-one', 'TASK_STATE_WORKING', { holder: 'web#00bb00bb00bb00bb', expiresInMs: 60_000 });
    const c = await coordinator({ replicaName: 'web' });
    expect(c.holdsName).toBe(true);
    c.attach(recordingHost());
    expect(await c.recover()).toEqual(['of-a-dead-one']);
    expect(await holderOf('of-a-live-one')).toBe('web#00aa00aa00aa00aa');
  });

  it('takes its name\'s lock again when its LISTEN connection is re-made, so a process started under that name meanwhile is refused it', async () => {
    const first = await coordinator({ replicaName: 'web' });
    const tag = first.processId.split('#')[1]!;
    await db.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`taskwire listener ${tag} web`]);
    await until(() => first.reconnections === 1 && first.holdsName === true, 'the LISTEN connection to be re-made with the lock');
    const second = await coordinator({ replicaName: 'web' });
    expect(second.holdsName).toBe(false);
    // Once the first is gone (closed), the name is free for its successor.
    await first.close();
    const third = await coordinator({ replicaName: 'web' });
    expect(third.holdsName).toBe(true);
  });

  it('after a reconnection that finds its name taken by another live process, logs an error and goes on', async () => {
    const logger = recordingLogger();
    const first = await coordinator({ replicaName: 'web', logger, pingIntervalMs: 60_000 });
    const tag = first.processId.split('#')[1]!;
    // Hold the name from another session while the first's listener is down.
    const intruder = new pg.Client({ connectionString: db.url });
    await intruder.connect();
    clients.push(intruder);
    const sessions = await db.pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1`, [`taskwire listener ${tag} web`]);
    await db.pool.query('SELECT pg_terminate_backend($1)', [sessions.rows[0]!.pid]);
    await intruder.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`taskwire replica ${schema} web`]);
    await until(() => first.reconnections === 1 && logger.errors.length > 0, 'the reconnection to be refused the name');
    expect(first.holdsName).toBe(false);
    expect(logger.errors).toEqual([expect.stringMatching(/while this replica's LISTEN connection was down, another live process took the replica name "web"/)]);
  });
});
