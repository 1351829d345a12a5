// Ties the model to the code: each SQL statement the model's transitions stand for runs on a real PostgreSQL
// (a migrated schema) from random small states, and the rows it leaves (and what it returns) must be what the
// model's transition computes from the same state. A statement changed on one side only fails here.
import fc from 'fast-check';
import { describePostgres } from '@taskwire/postgres/testing';
import type pg from 'pg';
import { beforeAll, expect, it } from 'vitest';
import { clusterStatements } from '../../postgres/src/cluster/cluster-sql.js';
import { pushStatements } from '../../postgres/src/push-sql.js';
import { quoteSchema } from '../../postgres/src/schema-name.js';
import {
  beatTransition,
  expireOwnTransition,
  expireTakenTransition,
  expiredPushClaimsTransition,
  type Held,
  pushAdvanceTransition,
  pushClaimTransition,
  renewPushClaimsTransition,
  renewTransition,
  takeOverOwnTransition,
  type Taken,
  takeOverTransition,
} from './db-transitions.js';
import type { Db, PushRow, Status, TaskRow } from './model-state.js';

/** One model tick is a second of the database's clock here; a lease is ten. */
const TICK_MS = 1_000;
const TTL = 10;
const SEED = Number(process.env.MODEL_SEED ?? 4242);
const RUNS = Number(process.env.MODEL_TIE_RUNS ?? 50);
const STATE: Record<Status, string> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
};
const IDS = ['t0', 't1', 't2'];
const HOLDERS = ['r0', 'r1'];

// Offsets from the database's now, in ticks, never 0 (the statements and the reads run milliseconds apart).
const ahead = fc.constantFrom(-3, -1, 1, 3);
const rowArb: fc.Arbitrary<TaskRow> = fc
  .record({
    status: fc.constantFrom<Status>('submitted', 'working', 'working', 'input-required', 'completed'),
    holder: fc.constantFrom(null, 'r0', 'r1', 'r1'),
    epoch: fc.integer({ min: 1, max: 3 }),
    expires: ahead,
    takeovers: fc.nat(2),
    seq: fc.integer({ min: 1, max: 4 }),
  })
  .map((r) => (r.holder === null || r.status === 'completed' ? { ...r, holder: null, epoch: null, expires: null, messages: [] } : { ...r, messages: [] }));
const pushArb: fc.Arbitrary<PushRow> = fc.record({ delivered: fc.nat(4), claimHolder: fc.constantFrom(null, 'r0', 'r1'), claimExpires: ahead }).map((p) => (p.claimHolder === null ? { ...p, claimExpires: null } : p));
const stateArb = fc.record({
  tasks: fc.tuple(rowArb, rowArb, rowArb),
  // Another holder's heartbeat expired for two hours is forgotten by a beat (its statements' "an hour").
  heartbeats: fc.tuple(fc.option(fc.constantFrom(-7_200, -2, 2), { freq: 4 }), fc.option(fc.constantFrom(-7_200, -2, 2), { freq: 4 })),
  push: fc.tuple(pushArb, pushArb, pushArb),
});
type State = typeof stateArb extends fc.Arbitrary<infer T> ? T : never;
const heldArb: fc.Arbitrary<Held> = fc.subarray(['t0', 't1', 't2', 'gone']).chain((ids) => fc.tuple(...ids.map((id) => fc.tuple(fc.constant(id), fc.integer({ min: 1, max: 3 })))));

/** A row a take-over statement returns. */
type TakenRow = { id: string; lease_epoch: number; lease_takeovers: number };

/** What the model and the database are compared on: every row, times as whole ticks from now. */
interface Snapshot {
  tasks: Record<string, Omit<TaskRow, 'messages'>>;
  heartbeats: Record<string, number>;
  push: Record<string, PushRow>;
}

function modelOf(state: State, nextEpoch: number): Db {
  const db: Db = { now: 0, tasks: {}, heartbeats: {}, nextEpoch, push: {}, contracted: true };
  state.tasks.forEach((row, i) => (db.tasks[IDS[i]!] = structuredClone(row)));
  state.heartbeats.forEach((h, i) => h !== null && (db.heartbeats[HOLDERS[i]!] = h));
  state.push.forEach((p, i) => (db.push[IDS[i]!] = { ...p }));
  return db;
}

function snapshotOf(db: Db): Snapshot {
  const tasks = Object.fromEntries(Object.entries(db.tasks).map(([id, { messages: _, ...row }]) => [id, row]));
  return { tasks, heartbeats: { ...db.heartbeats }, push: structuredClone(db.push) };
}

describePostgres("the model's transitions are the statements' effects", (database) => {
  let S = '';
  let pool: pg.Pool;
  const sql = () => clusterStatements(S);
  const push = () => pushStatements(S, 10);

  beforeAll(async () => {
    S = quoteSchema(await database.schema('tw_model'));
    pool = database.pool;
  });

  /** Writes `state` (times from now, in milliseconds) and resolves the epoch sequence's next value. */
  async function load(state: State): Promise<number> {
    const ms = (ticks: number | null) => (ticks === null ? null : ticks * TICK_MS);
    const later = (column: string) => `now() + ${column}::double precision * interval '1 millisecond'`;
    await pool.query(`WITH a AS (DELETE FROM ${S}.lease_heartbeats), b AS (DELETE FROM ${S}.push_configs) DELETE FROM ${S}.tasks`);
    const t = state.tasks;
    await pool.query(
      `INSERT INTO ${S}.tasks (id, owner, context_id, state, status_key, version, last_sequence, task, lease_holder, lease_epoch, lease_expires_at, lease_takeovers)
       SELECT id, 'o', 'c', state, 'k', 1, seq, '{}', holder, epoch, ${later('expires')}, takeovers
       FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::integer[], $6::bigint[], $7::integer[]) AS r(id, state, seq, holder, epoch, expires, takeovers)`,
      [IDS, t.map((r) => STATE[r.status]), t.map((r) => r.seq), t.map((r) => r.holder), t.map((r) => r.epoch), t.map((r) => ms(r.expires)), t.map((r) => r.takeovers)],
    );
    const p = state.push;
    await pool.query(
      `INSERT INTO ${S}.push_configs (task_id, config_id, owner, delivered, config, claim_holder, claim_expires_at)
       SELECT id, 'c', 'o', delivered, '{}', holder, ${later('expires')}
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS p(id, delivered, holder, expires)`,
      [IDS, p.map((c) => c.delivered), p.map((c) => c.claimHolder), p.map((c) => ms(c.claimExpires))],
    );
    const beats = state.heartbeats.flatMap((h, i) => (h === null ? [] : [[HOLDERS[i]!, ms(h)] as const]));
    await pool.query(`INSERT INTO ${S}.lease_heartbeats (holder, expires_at) SELECT holder, ${later('expires')} FROM unnest($1::text[], $2::bigint[]) AS b(holder, expires)`, [
      beats.map(([h]) => h),
      beats.map(([, e]) => e),
    ]);
    const { rows } = await pool.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${S}.task_lease_epochs`);
    return Number(rows[0]!.last_value) + (rows[0]!.is_called ? 1 : 0);
  }

  async function read(): Promise<Snapshot> {
    const ticks = (column: string) => `round(extract(epoch from ${column} - now()) * 1000 / ${TICK_MS})::int`;
    const tasks = await pool.query(`SELECT id, state, lease_holder, lease_epoch, ${ticks('lease_expires_at')} AS expires, lease_takeovers, last_sequence FROM ${S}.tasks ORDER BY id`);
    const beats = await pool.query(`SELECT holder, ${ticks('expires_at')} AS expires FROM ${S}.lease_heartbeats ORDER BY holder`);
    const configs = await pool.query(`SELECT task_id, delivered, claim_holder, ${ticks('claim_expires_at')} AS expires FROM ${S}.push_configs ORDER BY task_id`);
    const status = (state: string) => (Object.keys(STATE) as Status[]).find((s) => STATE[s] === state)!;
    return {
      tasks: Object.fromEntries(
        tasks.rows.map((r) => [r.id, { status: status(r.state), holder: r.lease_holder, epoch: r.lease_epoch, expires: r.expires, takeovers: r.lease_takeovers, seq: Number(r.last_sequence) }]),
      ),
      heartbeats: Object.fromEntries(beats.rows.map((r) => [r.holder, r.expires])),
      push: Object.fromEntries(configs.rows.map((r) => [r.task_id, { delivered: Number(r.delivered), claimHolder: r.claim_holder, claimExpires: r.expires }])),
    };
  }

  /** The rows a take-over statement returned and left are those the model took (epochs come from the sequence in the statement's row order: compared as a set). */
  async function expectTaken(model: Db, taken: readonly Taken[], { rows }: pg.QueryResult<TakenRow>): Promise<void> {
    expect(rows.map((r) => [r.id, r.lease_takeovers]).sort()).toEqual(taken.map((t) => [t.id, t.takeovers]).sort());
    expect(rows.map((r) => r.lease_epoch).sort()).toEqual(taken.map((t) => t.epoch).sort());
    const real = await read();
    for (const { id } of rows) real.tasks[id]!.epoch = model.tasks[id]!.epoch;
    expect(real).toEqual(snapshotOf(model));
  }

  /** Runs `check` on random states and fails with the seed to replay. */
  const property = <T>(arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arb, check), { seed: SEED, numRuns: RUNS, endOnFailure: true });

  for (const [name, transition] of [['renew', renewTransition], ['beat', beatTransition]] as const) {
    it(`${name} is ${transition.name}`, { timeout: 120_000 }, async () => {
      await property(fc.tuple(stateArb, heldArb), async ([state, held]) => {
        const model = modelOf(state, await load(state));
        const lost = transition(model, 'r0', held, TTL);
        const { rows } = await pool.query<{ id: string }>(sql()[name], ['r0', held.map(([id]) => id), held.map(([, e]) => e), TTL * TICK_MS]);
        expect(rows.map((r) => r.id).sort()).toEqual([...lost].sort());
        expect(await read()).toEqual(snapshotOf(model));
      });
    });
  }

  it('takeOver (no predecessor) is takeOverTransition', { timeout: 120_000 }, async () => {
    const args = fc.record({ takeFree: fc.boolean(), limit: fc.constantFrom(1, 100), held: fc.subarray(IDS) });
    await property(fc.tuple(stateArb, args), async ([state, { takeFree, limit, held }]) => {
      const model = modelOf(state, await load(state));
      const taken = takeOverTransition(model, 'r0', TTL, takeFree, limit, held);
      await expectTaken(model, taken, await pool.query<TakenRow>(sql().takeOver, ['r0', TTL * TICK_MS, takeFree, limit, held, null]));
    });
  });

  it('takeOverOwn (the self-sweep) is takeOverOwnTransition', { timeout: 120_000 }, async () => {
    const args = fc.record({ limit: fc.constantFrom(1, 100), held: fc.subarray(IDS) });
    await property(fc.tuple(stateArb, args), async ([state, { limit, held }]) => {
      const model = modelOf(state, await load(state));
      const taken = takeOverOwnTransition(model, 'r0', TTL, held, limit);
      await expectTaken(model, taken, await pool.query<TakenRow>(sql().takeOverOwn, ['r0', TTL * TICK_MS, held, limit]));
    });
  });

  it('expireTaken is expireTakenTransition', { timeout: 120_000 }, async () => {
    const args = fc.record({ id: fc.constantFrom(...IDS), holder: fc.constantFrom(...HOLDERS), epoch: fc.integer({ min: 1, max: 3 }) });
    await property(fc.tuple(stateArb, args), async ([state, { id, holder, epoch }]) => {
      const model = modelOf(state, await load(state));
      expireTakenTransition(model, id, holder, epoch);
      await pool.query(sql().expireTaken, [id, holder, epoch]);
      expect(await read()).toEqual(snapshotOf(model));
    });
  });

  it('expireOwn is expireOwnTransition', { timeout: 120_000 }, async () => {
    await property(stateArb, async (state) => {
      const model = modelOf(state, await load(state));
      expireOwnTransition(model, 'r0');
      await pool.query(sql().expireOwn, ['r0']);
      expect(await read()).toEqual(snapshotOf(model));
    });
  });

  it("push's expiredClaims, claim, renewClaims and advance are their transitions", { timeout: 120_000 }, async () => {
    const args = fc.record({ id: fc.constantFrom(...IDS), ids: fc.subarray(IDS), seq: fc.nat(5) });
    await property(fc.tuple(stateArb, args), async ([state, { id, ids, seq }]) => {
      const model = modelOf(state, await load(state));
      const expired = await pool.query<{ task_id: string }>(push().expiredClaims);
      expect(expired.rows.map((r) => r.task_id).sort()).toEqual(expiredPushClaimsTransition(model).sort());
      const claimed = pushClaimTransition(model, id, 'r0', TTL);
      const claim = await pool.query(push().claim, [id, 'c', 'r0', TTL * TICK_MS]);
      expect(claim.rowCount === 1).toBe(claimed);
      const lost = renewPushClaimsTransition(model, 'r1', ids, TTL);
      const renewed = await pool.query<{ task_id: string }>(push().renewClaims, ['r1', ids, ids.map(() => 'c'), TTL * TICK_MS]);
      expect(renewed.rows.map((r) => r.task_id).sort()).toEqual([...lost].sort());
      pushAdvanceTransition(model, id, seq);
      await pool.query(push().advance, [id, 'c', seq]);
      expect(await read()).toEqual(snapshotOf(model));
    });
  });
});
