import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { migrate } from '../migrate.js';
import { MIGRATIONS } from '../migrations.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator, type PostgresCoordinator, type PostgresCoordinatorOptions } from './coordinator.js';
import { insertTask, recordingHost, until } from './coordinator-test-kit.js';
import { HEARTBEAT_MIGRATION, LEASE_HEARTBEATS_STEP } from './heartbeat-migration.js';

describePostgres('lease heartbeats: upkeep per replica, not per task', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  const stores: PostgresTaskStore[] = [];
  const open: PostgresCoordinator[] = [];
  const openStore = async () => {
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    stores.push(store);
    return store;
  };
  const coordinator = async (store: PostgresTaskStore, options: Omit<PostgresCoordinatorOptions, 'store'> = {}) => {
    const c = await createPostgresCoordinator({ store, ...options });
    open.push(c);
    return c;
  };
  const heartbeat = async (holder: string) =>
    (await db.pool.query<{ at: Date }>(`SELECT expires_at AS at FROM ${S}.lease_heartbeats WHERE holder = $1`, [holder])).rows[0]?.at;
  const setHeartbeat = (holder: string, inMs: number) =>
    db.pool.query(
      `INSERT INTO ${S}.lease_heartbeats (holder, expires_at) VALUES ($1, now() + $2::double precision * interval '1 millisecond')
       ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
      [holder, inMs],
    );
  /** Waits until `holder`'s heartbeat was pushed forward `times` times (each renewal writes a new expiry). */
  const beats = async (holder: string, times: number) => {
    const seen = new Set<number>();
    await until(async () => {
      const at = await heartbeat(holder);
      if (at !== undefined) seen.add(at.getTime());
      return seen.size > times;
    }, `${times} heartbeats`);
  };
  const rowVersions = async () => (await db.pool.query<{ id: string; v: string }>(`SELECT id, xmin::text || ctid::text AS v FROM ${S}.tasks ORDER BY id`)).rows;

  beforeEach(async () => {
    schema = await db.schema('tw_beat');
    S = quoteSchema(schema);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await db.drop(schema);
  });

  it('a new schema records the lease-heartbeats step at once; one an earlier release made waits for `contract`', async () => {
    const steps = async (name: string) => (await db.pool.query<{ step: string }>(`SELECT step FROM ${quoteSchema(name)}.taskwire_contract_steps`)).rows.map((r) => r.step);
    expect(await steps(schema)).toContain(LEASE_HEARTBEATS_STEP);
    const older = `tw_beat_${randomBytes(5).toString('hex')}`;
    const O = quoteSchema(older);
    try {
      await db.pool.query(`CREATE SCHEMA ${O}`);
      await db.pool.query(`CREATE TABLE ${O}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      for (const step of MIGRATIONS.filter((m) => m.version < HEARTBEAT_MIGRATION.version)) {
        await db.pool.query(step.sql(O));
        await db.pool.query(`INSERT INTO ${O}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
      }
      await migrate({ pool: db.pool, schema: older });
      expect(await steps(older)).not.toContain(LEASE_HEARTBEATS_STEP);
    } finally {
      await db.pool.query(`DROP SCHEMA ${O} CASCADE`);
    }
  });

  it('takes a task over once its holder’s heartbeat expired, never while it beats (row expiry passed or not); a holder without one by its row alone', async () => {
    const c = await coordinator(await openStore());
    const host = recordingHost();
    c.attach(host);
    await setHeartbeat('beating#1', 60_000);
    await setHeartbeat('silent#1', -1);
    await insertTask(db.pool, S, 'beating', 'TASK_STATE_WORKING', { holder: 'beating#1', expiresInMs: -1 });
    await insertTask(db.pool, S, 'silent', 'TASK_STATE_WORKING', { holder: 'silent#1', expiresInMs: -1 });
    // A previous release's replica writes no heartbeat: its row's expiry decides, as that release itself decides.
    await insertTask(db.pool, S, 'older-live', 'TASK_STATE_WORKING', { holder: 'older#1', expiresInMs: 60_000 });
    await insertTask(db.pool, S, 'older-expired', 'TASK_STATE_WORKING', { holder: 'older#2', expiresInMs: -1 });
    // A task claimed after the last heartbeat: its row's own lease still counts, however old the heartbeat.
    await insertTask(db.pool, S, 'claimed-since', 'TASK_STATE_WORKING', { holder: 'silent#1', expiresInMs: 60_000 });
    await c.recover();
    // The recording host settles nothing, so this replica's own sweep takes its unsettled rows again (as it retries a
    // settling that failed): which tasks were taken is what counts here, not how often.
    const taken = () => [...new Set(host.settled.map(([id]) => id))].sort();
    expect(taken()).toEqual(['older-expired', 'silent']);
    await setHeartbeat('beating#1', -1);
    await until(() => taken().includes('beating'), 'the take-over once the heartbeat expired');
    const { rows } = await db.pool.query(`SELECT lease_holder FROM ${S}.tasks WHERE id = 'beating'`);
    expect(rows[0].lease_holder).toBe(c.processId);
    expect(taken()).toEqual(['beating', 'older-expired', 'silent']);
  });

  it('after the step, renewals write only the heartbeat: 200 held task rows stay untouched, and no replica takes them while it beats', async () => {
    const c = await coordinator(await openStore(), { leaseTtlMs: 1_500 });
    const ids = Array.from({ length: 200 }, (_, i) => `t${String(i).padStart(3, '0')}`);
    for (const id of ids) await insertTask(db.pool, S, id, 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 1_500, epoch: 2 });
    const lost: string[] = [];
    for (const id of ids) c.hold(id, 2, () => lost.push(id));
    const before = await rowVersions();
    await beats(c.processId, 4);
    // Every row's own expiry passed long ago; the heartbeat alone keeps the leases.
    await until(async () => (await db.pool.query(`SELECT bool_and(lease_expires_at < now()) AS past FROM ${S}.tasks`)).rows[0].past === true, 'the rows’ expiry to pass');
    expect(await rowVersions()).toEqual(before);
    expect(lost).toEqual([]);
    const other = await coordinator(await openStore());
    const host = recordingHost();
    other.attach(host);
    expect(await other.recover()).toEqual([]);
    // A stopping replica drops its heartbeat and expires its rows: the other takes every task over at once.
    await c.close();
    expect(await heartbeat(c.processId)).toBeUndefined();
    await until(() => host.settled.length === ids.length, 'every task taken over');
  });

  it('before the step, renewals keep every task row live too (a release without heartbeats reads only the rows), and the heartbeat beside them', async () => {
    await db.pool.query(`DELETE FROM ${S}.taskwire_contract_steps WHERE step = $1`, [LEASE_HEARTBEATS_STEP]);
    const c = await coordinator(await openStore(), { leaseTtlMs: 1_500 });
    await insertTask(db.pool, S, 'held', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 1_500, epoch: 2 });
    c.hold('held', 2, () => undefined);
    const expiry = async () => (await db.pool.query<{ at: Date }>(`SELECT lease_expires_at AS at FROM ${S}.tasks WHERE id = 'held'`)).rows[0]!.at.getTime();
    const first = await expiry();
    await beats(c.processId, 2);
    await until(async () => (await expiry()) > first, 'a renewal of the row');
  });
});
