import { afterEach, beforeEach, expect, it } from 'vitest';
import { recordContractSteps } from '../contract-steps.js';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { createPostgresCoordinator, type PostgresCoordinator } from './coordinator.js';
import { recordingHost, until } from './coordinator-test-kit.js';
import { startCrashableReplica, type CrashableReplica } from './crashable-replica-test-kit.js';
import { LEASE_HEARTBEATS_STEP } from './heartbeat-migration.js';

/** Short leases: renewals every two seconds, so a replica starved by a loaded machine still renews well within the lease. */
const LEASE_MS = 6_000;
const TASKS = ['run-1', 'run-2'];
/** How often both replicas' stores read the contract steps again (`contractRefreshMs`; 10 s by default). */
const REFRESH_MS = 500;
/** A bound on every wait: a few leases and refreshes, on a loaded machine. */
const LIMIT_MS = 5 * LEASE_MS;

describePostgres('lease heartbeats: a running replica switches to its heartbeat alone once the contract step is recorded', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  let replica: CrashableReplica | undefined;
  let store: PostgresTaskStore | undefined;
  let other: PostgresCoordinator | undefined;

  /** One snapshot (ms since the epoch): `holder`'s heartbeat expiry, the earliest and latest row expiry of the tasks, and whether every row's expiry passed. */
  const leases = async (holder: string) => {
    const { rows } = await db.pool.query<{ beat: Date | null; first: Date; last: Date; expired: boolean }>(
      `SELECT (SELECT expires_at FROM ${S}.lease_heartbeats WHERE holder = $1) AS beat,
              min(lease_expires_at) AS first, max(lease_expires_at) AS last, bool_and(lease_expires_at < now()) AS expired
       FROM ${S}.tasks WHERE id = ANY($2::text[])`,
      [holder, TASKS],
    );
    const row = rows[0]!;
    return { beat: row.beat?.getTime(), first: row.first.getTime(), last: row.last.getTime(), expired: row.expired };
  };
  const holders = async () => (await db.pool.query<{ h: string }>(`SELECT DISTINCT lease_holder AS h FROM ${S}.tasks WHERE id = ANY($1::text[])`, [TASKS])).rows.map((r) => r.h);

  beforeEach(async () => {
    schema = await db.schema('tw_switch');
    S = quoteSchema(schema);
    // A schema an earlier release used: the step waits for `contract`.
    await db.pool.query(`DELETE FROM ${S}.taskwire_contract_steps WHERE step = $1`, [LEASE_HEARTBEATS_STEP]);
  });
  afterEach(async () => {
    await replica?.kill();
    await other?.close();
    await store?.close();
    replica = other = store = undefined;
    await db.drop(schema);
  });

  it('renews its rows until the step, then beats alone (no other replica takes its tasks while it beats); killed, its tasks are taken over once its heartbeat expired', async () => {
    // A runs in a process of its own, so that it can crash as a process does (see step 3).
    const a = (replica = await startCrashableReplica(db.url, schema, LEASE_MS, TASKS, REFRESH_MS));
    store = await createPostgresTaskStore({ pool: db.pool, schema, contractRefreshMs: REFRESH_MS });
    const b = (other = await createPostgresCoordinator({ store, leaseTtlMs: LEASE_MS }));
    const host = recordingHost();
    b.attach(host);

    // 1. Before the step, each renewal pushes every held row's expiry forward, in the statement that beats the heartbeat (the same now()).
    const claimed = await leases(a.processId);
    await until(async () => (await leases(a.processId)).first > claimed.last, 'a renewal of A’s rows', LIMIT_MS);
    const renewed = await leases(a.processId);
    expect([renewed.first, renewed.last]).toEqual([renewed.beat, renewed.beat]);

    // 2. The step is recorded while A runs. A reads the steps again by itself (every REFRESH_MS: well before the
    //    default 10 s has passed, so the option is in effect); its first renewal after that beats the heartbeat alone, past its rows.
    expect(await recordContractSteps({ pool: db.pool, schema })).toEqual([LEASE_HEARTBEATS_STEP]);
    //    Counted in A's heartbeats, not in time: with REFRESH_MS in effect its store reads the step within half a
    //    renewal interval, so one of its first renewals after the step beats alone; with the default 10 s it would
    //    renew its rows about ten times more.
    const beats = new Set<number>();
    await until(async () => {
      const now = await leases(a.processId);
      if (now.beat !== undefined) beats.add(now.beat);
      return (now.beat !== undefined && now.beat > now.last) || beats.size > 4;
    }, 'A to beat its heartbeat alone', LIMIT_MS);
    const switched = await leases(a.processId);
    expect(switched.beat! > switched.last, `A's store read the step (every ${REFRESH_MS} ms) and A beat alone within its first renewals after it (heartbeats seen: ${beats.size})`).toBe(true);
    // The rows keep the expiry of the last renewal before the switch until it passed, while the heartbeat keeps moving.
    await until(async () => {
      const now = await leases(a.processId);
      return now.expired && now.beat !== undefined && now.beat > switched.beat!;
    }, 'A’s row leases to expire while its heartbeat moves on', LIMIT_MS);
    const expired = await leases(a.processId);
    expect([expired.first, expired.last]).toEqual([switched.first, switched.last]);
    // B sweeps: every row's lease expired, but A's heartbeat is live, so B takes nothing (and A lost nothing).
    expect(await b.recover()).toEqual([]);
    expect(host.settled).toEqual([]);
    expect(await holders()).toEqual([a.processId]);
    expect(a.lost).toEqual([]);

    // 3. A crashes. Killing its process (SIGKILL) is what a crash is: no clean stop (which would hand its leases over at once),
    // its renewals and connections end mid-flight, and its heartbeat row stays behind to expire.
    await a.kill();
    // The recording host settles nothing, so B's own sweep takes the rows again after its first take-over (as it
    // retries a settling that failed): which tasks B took is what counts, not how often.
    const taken = () => [...new Set(host.settled.map(([id]) => id))].sort();
    await until(() => taken().length === TASKS.length, 'B to take A’s tasks over', LIMIT_MS);
    expect(taken()).toEqual(TASKS);
    expect(await holders()).toEqual([b.processId]);
    // A take-over sets the row's expiry to its own now() plus the lease: A's heartbeat (still there, no handover) had expired before it.
    const { rows } = await db.pool.query<{ before: boolean }>(
      `SELECT bool_and(b.expires_at < t.lease_expires_at - $2::double precision * interval '1 millisecond') AS before
       FROM ${S}.tasks t, ${S}.lease_heartbeats b WHERE t.id = ANY($3::text[]) AND b.holder = $1`,
      [a.processId, LEASE_MS, TASKS],
    );
    expect(rows[0]!.before).toBe(true);
  }, 4 * LIMIT_MS);
});
