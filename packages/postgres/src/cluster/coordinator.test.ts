import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator, type PostgresCoordinator, type PostgresCoordinatorOptions } from './coordinator.js';
import { eventsChannel } from './names.js';
import { FIRST_SEQUENCED_EPOCH } from './epoch-sequence-migration.js';
import { insertTask, recordingHost, until } from './coordinator-test-kit.js';
import { leaseExpiry } from './heartbeat-migration.js';

describePostgres('PostgresCoordinator', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  let store: PostgresTaskStore;
  const open: PostgresCoordinator[] = [];
  const coordinator = async (options: Omit<PostgresCoordinatorOptions, 'store'> = {}) => {
    const c = await createPostgresCoordinator({ store, ...options });
    open.push(c);
    return c;
  };
  /** A task row as the store writes it, with a lease. */
  const task = (id: string, state: string, lease?: { holder: string; expiresInMs: number; epoch?: number }) => insertTask(db.pool, S, id, state, lease);
  const leaseOf = async (id: string) =>
    (await db.pool.query(`SELECT lease_holder, lease_epoch, ${leaseExpiry(S, 'lease_holder', 'lease_expires_at')} > now() AS live FROM ${S}.tasks WHERE id = $1`, [id])).rows[0];

  beforeEach(async () => {
    schema = await db.schema('tw_cluster');
    S = quoteSchema(schema);
    store = await createPostgresTaskStore({ pool: db.pool, schema });
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
    await store.close();
    await db.drop(schema);
  });

  it('wakes a watcher on a commit announced by another session, with the newest sequence, and only for watched tasks', async () => {
    const c = await coordinator();
    const heard: number[] = [];
    const stop = c.watch('t1', (sequence) => heard.push(sequence));
    const unwatched: number[] = [];
    c.watch('t2', (sequence) => unwatched.push(sequence))();
    const channel = eventsChannel(schema);
    await db.pool.query(`SELECT pg_notify($1, '4 t1'), pg_notify($1, '5 t1'), pg_notify($1, '9 t2')`, [channel]);
    await until(() => heard.includes(5), 'the wake-up');
    // Both notifications arrive at once (one transaction): the watcher hears the newest sequence, at most once each.
    expect(heard.at(-1)).toBe(5);
    expect(heard.length).toBeLessThanOrEqual(2);
    expect(unwatched).toEqual([]);
    stop();
    await db.pool.query(`SELECT pg_notify($1, '6 t1')`, [channel]);
    await db.pool.query(`SELECT pg_notify($1, '7 t3')`, [channel]);
    expect(heard.at(-1)).toBe(5);
  });

  it('re-reads watched tasks periodically, so a commit whose notification was lost still arrives', async () => {
    await task('t1', 'TASK_STATE_WORKING');
    const c = await coordinator({ catchUpIntervalMs: 50 });
    const heard: number[] = [];
    c.watch('t1', (sequence) => heard.push(sequence));
    await db.pool.query(`UPDATE ${S}.tasks SET last_sequence = 8 WHERE id = 't1'`);
    await until(() => heard.includes(8), 'the catch-up read');
  });

  it('reconnects its LISTEN connection after the database ends it, catches up, and hears notifications again', async () => {
    await task('t1', 'TASK_STATE_WORKING');
    const warnings: string[] = [];
    const c = await coordinator({ logger: { warn: (_fields, m) => warnings.push(m ?? ''), error: () => {} } });
    const heard: number[] = [];
    c.watch('t1', (sequence) => heard.push(sequence));
    // The replica's LISTEN session carries its process id in its application name.
    const listeners = `SELECT pid FROM pg_stat_activity WHERE application_name = 'taskwire listener ${c.processId}'`;
    const before = (await db.pool.query(listeners)).rows.map((r) => r.pid as number);
    expect(before).toHaveLength(1);
    // Committed while the connection is down: no notification reaches this replica; the catch-up after reconnecting brings it.
    await db.pool.query(`SELECT pg_terminate_backend(pid) FROM (${listeners}) l`);
    await db.pool.query(`UPDATE ${S}.tasks SET last_sequence = 11 WHERE id = 't1'`);
    await until(() => heard.includes(11), 'the catch-up after reconnecting');
    expect(warnings.some((w) => w.includes('LISTEN connection was lost'))).toBe(true);
    await until(async () => (await db.pool.query(listeners)).rows.some((r) => !before.includes(r.pid as number)), 'a new LISTEN session');
    await db.pool.query(`SELECT pg_notify($1, '12 t1')`, [eventsChannel(schema)]);
    await until(() => heard.includes(12), 'a notification after reconnecting');
  });

  it('renews the leases it holds and reports one taken over by another replica', async () => {
    const c = await coordinator({ leaseTtlMs: 300 });
    await task('held', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 300, epoch: 2 });
    await task('taken', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 300, epoch: 2 });
    const lost: string[] = [];
    c.hold('held', 2, () => lost.push('held'));
    c.hold('taken', 2, () => lost.push('taken'));
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = 'someone else', lease_epoch = 3 WHERE id = 'taken'`);
    await until(() => lost.length > 0, 'the lost lease');
    expect(lost).toEqual(['taken']);
    // Renewed past its first expiry (by the replica's heartbeat: the lease-heartbeats step is recorded on a new schema): still live well after 300 ms.
    const firstExpiry = (await db.pool.query(`SELECT lease_expires_at AS at FROM ${S}.tasks WHERE id = 'held'`)).rows[0].at as Date;
    const beat = `SELECT expires_at AS at FROM ${S}.lease_heartbeats WHERE holder = $1`;
    await until(async () => (await db.pool.query(beat, [c.processId])).rows[0]?.at > firstExpiry, 'a renewal');
    expect((await leaseOf('held')).live).toBe(true);
  });

  it('takes over only the tasks whose lease expired (or that have none, at start-up), never one with a live lease, with a new epoch', async () => {
    const alive = await coordinator();
    const c = await coordinator();
    const host = recordingHost();
    c.attach(host);
    await task('of-a-live-replica', 'TASK_STATE_WORKING', { holder: alive.processId, expiresInMs: 60_000 });
    await task('expired', 'TASK_STATE_WORKING', { holder: alive.processId, expiresInMs: -1 });
    // A holder with no session at all (its LISTEN connection dropped, or it died a moment ago): its lease still decides.
    await task('of-a-silent-replica', 'TASK_STATE_SUBMITTED', { holder: '424242', expiresInMs: 60_000 });
    await task('no-lease', 'TASK_STATE_WORKING');
    await task('waiting-for-input', 'TASK_STATE_INPUT_REQUIRED', { holder: '424242', expiresInMs: -1 });
    const recovered = await c.recover();
    expect(recovered.sort()).toEqual(['expired', 'no-lease']);
    expect(host.settled.map(([id]) => id).sort()).toEqual(recovered);
    // A take-over draws a new epoch from the schema's sequence: one no earlier lease of any task had (their claims were at 3 at most).
    const epochs = host.settled.map(([, epoch]) => epoch);
    expect(new Set(epochs).size).toBe(2);
    expect(epochs.every((epoch) => epoch >= FIRST_SEQUENCED_EPOCH)).toBe(true);
    expect(await leaseOf('expired')).toMatchObject({ lease_holder: c.processId, lease_epoch: host.settled.find(([id]) => id === 'expired')![1], live: true });
    expect(await leaseOf('of-a-live-replica')).toMatchObject({ lease_holder: alive.processId, lease_epoch: 1 });
    expect(await leaseOf('of-a-silent-replica')).toMatchObject({ lease_holder: '424242', live: true });
    // The periodic sweep finds an expiry that happens later.
    await db.pool.query(`UPDATE ${S}.tasks SET lease_expires_at = now() WHERE id = 'of-a-live-replica'`);
    await until(() => host.settled.some(([id]) => id === 'of-a-live-replica'), 'the sweep');
  });

  it('an expired lease of its own is taken over unless it still holds that task; its live ones never, whatever it holds', async () => {
    // A long lease: no renewal comes between the set-up and the sweep below.
    const c = await coordinator({ leaseTtlMs: 600_000 });
    const host = recordingHost();
    c.attach(host);
    c.hold('held-late', 1, () => undefined);
    await task('held-late', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: -1 });
    await task('own-forgotten', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: -1 });
    await task('own-live', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 600_000 });
    await task('other-expired', 'TASK_STATE_WORKING', { holder: '424242', expiresInMs: -1 });
    await task('other-live', 'TASK_STATE_WORKING', { holder: '424242', expiresInMs: 600_000 });
    // Its heartbeat expired too (if it has beaten yet), so only the rows decide.
    await db.pool.query(`UPDATE ${S}.lease_heartbeats SET expires_at = now() - interval '1 second' WHERE holder = $1`, [c.processId]);
    await c.recover();
    expect(host.settled.map(([id]) => id).sort()).toEqual(['other-expired', 'own-forgotten']);
    expect(await leaseOf('held-late')).toMatchObject({ lease_holder: c.processId, lease_epoch: 1, live: false });
    expect(await leaseOf('own-live')).toMatchObject({ lease_holder: c.processId, lease_epoch: 1 });
    expect(await leaseOf('other-live')).toMatchObject({ lease_holder: '424242', lease_epoch: 1 });
  });

  it('its own rows that no run of it holds are taken over by its own sweep once their expiry passed (at once when a take-over made them), while its heartbeat lives; held or fresh claimed ones never', async () => {
    const c = await coordinator({ leaseTtlMs: 600_000 });
    const host = recordingHost();
    c.hold('held-late', 1, () => undefined);
    await task('held-late', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: -1 });
    await task('own-given-up', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: -1 });
    await task('own-fresh', 'TASK_STATE_SUBMITTED', { holder: c.processId, expiresInMs: 600_000 });
    // A take-over of this replica whose answer was lost: its row is fresh, but nobody here runs it (its run may have started elsewhere).
    await task('own-taken', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 600_000 });
    await db.pool.query(`UPDATE ${S}.tasks SET lease_takeovers = 1 WHERE id = 'own-taken'`);
    // Its heartbeat is live (its other runs keep it so): no other replica would take these rows.
    await db.pool.query(
      `INSERT INTO ${S}.lease_heartbeats (holder, expires_at) VALUES ($1, now() + interval '1 hour') ON CONFLICT (holder) DO UPDATE SET expires_at = excluded.expires_at`,
      [c.processId],
    );
    c.attach(host);
    await until(() => host.settled.length > 1, 'its own sweep');
    expect(host.settled.map(([id]) => id).sort()).toEqual(['own-given-up', 'own-taken']);
    const givenUp = host.settled.find(([id]) => id === 'own-given-up')!;
    const taken = (await db.pool.query(`SELECT lease_holder, lease_epoch, lease_takeovers FROM ${S}.tasks WHERE id = 'own-given-up'`)).rows[0];
    expect(taken).toEqual({ lease_holder: c.processId, lease_epoch: givenUp[1], lease_takeovers: 1 });
    expect(givenUp[1]).toBeGreaterThanOrEqual(FIRST_SEQUENCED_EPOCH);
    expect((await db.pool.query(`SELECT lease_takeovers FROM ${S}.tasks WHERE id = 'own-taken'`)).rows[0]).toEqual({ lease_takeovers: 2 });
    expect(await leaseOf('held-late')).toMatchObject({ lease_holder: c.processId, lease_epoch: 1 });
    expect(await leaseOf('own-fresh')).toMatchObject({ lease_holder: c.processId, lease_epoch: 1 });
  });

  it('a take-over whose settling failed is taken again by its next sweep, with a new epoch, not a lease later', async () => {
    const c = await coordinator({ leaseTtlMs: 600_000 });
    const tries: number[] = [];
    c.attach({
      settleOrphan: async (_id, epoch) => {
        tries.push(epoch);
        if (tries.length === 1) throw new Error('a transient error on the settling commit');
      },
    });
    await task('orphan', 'TASK_STATE_WORKING', { holder: '424242', expiresInMs: -1 });
    await until(() => tries.length >= 2, 'the settling to be tried again');
    expect(tries[1]).toBeGreaterThan(tries[0]!);
    expect((await db.pool.query(`SELECT lease_takeovers FROM ${S}.tasks WHERE id = 'orphan'`)).rows[0]).toEqual({ lease_takeovers: 2 });
  });

  it('a new run (a claim) starts the count of take-overs again; an interrupted task keeps its run\'s lease, a terminal one releases it', async () => {
    const c = await coordinator();
    await task('t', 'TASK_STATE_INPUT_REQUIRED', { holder: c.processId, expiresInMs: 60_000, epoch: 3 });
    await db.pool.query(`UPDATE ${S}.tasks SET lease_takeovers = 2 WHERE id = 't'`);
    const stored = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } };
    const lease = { holder: c.processId, ttlMs: 60_000 };
    const { leaseEpoch: epoch } = await store.commit({ task: stored, expectedVersion: 3, owner: '', events: [], lease: { kind: 'claim', ...lease } });
    expect(epoch).toBeGreaterThanOrEqual(FIRST_SEQUENCED_EPOCH);
    const after = (await db.pool.query(`SELECT lease_epoch, lease_takeovers FROM ${S}.tasks WHERE id = 't'`)).rows[0];
    expect(after).toEqual({ lease_epoch: epoch, lease_takeovers: 0 });
    const asking = { ...stored, status: { state: 'TASK_STATE_AUTH_REQUIRED' as const } };
    await store.commit({ task: asking, expectedVersion: 4, owner: '', events: [], lease: { kind: 'hold', epoch: epoch!, ...lease } });
    expect(await leaseOf('t')).toMatchObject({ lease_holder: c.processId, lease_epoch: epoch });
    // The same run goes on by itself (a credential obtained out of band): its hold is still good.
    await store.commit({ task: stored, expectedVersion: 5, owner: '', events: [], lease: { kind: 'hold', epoch: epoch!, ...lease } });
    const done = { ...stored, status: { state: 'TASK_STATE_COMPLETED' as const } };
    await store.commit({ task: done, expectedVersion: 6, owner: '', events: [], lease: { kind: 'hold', epoch: epoch!, ...lease } });
    expect(await leaseOf('t')).toMatchObject({ lease_holder: null, lease_epoch: null });
  });

  it('at start-up, takes over at once the unexpired leases of its own replica name\'s earlier process (gone for certain), and no other name\'s', async () => {
    const c = await coordinator({ replicaName: 'web-1' });
    expect(c.processId.startsWith('web-1#')).toBe(true);
    const host = recordingHost();
    c.attach(host);
    await task('of-my-crashed-predecessor', 'TASK_STATE_WORKING', { holder: 'web-1#0123456789abcdef', expiresInMs: 60_000 });
    await task('of-another-replica', 'TASK_STATE_WORKING', { holder: 'web-10#0123456789abcdef', expiresInMs: 60_000 });
    await task('of-a-nameless-one', 'TASK_STATE_WORKING', { holder: '0123456789abcdef', expiresInMs: 60_000 });
    expect(await c.recover()).toEqual(['of-my-crashed-predecessor']);
    await expect(createPostgresCoordinator({ store, replicaName: 'a#b' })).rejects.toThrow(/without "#"/);
  });

  it('takes nothing over once draining', async () => {
    const c = await coordinator();
    const host = recordingHost();
    c.attach(host);
    c.drain();
    await task('expired', 'TASK_STATE_WORKING', { holder: '99', expiresInMs: -1 });
    expect(await c.recover()).toEqual([]);
    expect(await leaseOf('expired')).toMatchObject({ lease_holder: '99' });
  });

  it('hands each stopped task to exactly one replica when several sweep at once', async () => {
    const ids = Array.from({ length: 60 }, (_, i) => `orphan-${i}`);
    for (const id of ids) await task(id, 'TASK_STATE_WORKING', { holder: '777', expiresInMs: -1 });
    const replicas = await Promise.all([coordinator(), coordinator(), coordinator()]);
    const hosts = replicas.map((r) => {
      const host = recordingHost();
      r.attach(host);
      return host;
    });
    await Promise.all(replicas.map((r) => r.recover()));
    const all = hosts.flatMap((h) => h.settled.map(([id]) => id));
    expect(all.sort()).toEqual([...ids].sort());
  });

  it('on close, hands the leases it still holds over at once and ends its own connections', async () => {
    const c = await coordinator();
    await task('left', 'TASK_STATE_WORKING', { holder: c.processId, expiresInMs: 60_000 });
    await c.close();
    await c.close();
    expect((await leaseOf('left')).live).toBe(false);
    // The server ends a backend a moment after its client hung up.
    const sessions = async () => (await db.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1`, [`%${c.processId}`])).rows[0].n as number;
    await until(async () => (await sessions()) === 0, 'the sessions to end');
  });
});
