// Ties the model's commit transitions to the store: a replica's commit (PostgresTaskStore with shared commits,
// whose statements carry `leaseSql` of task-sql.ts) claiming or holding a task's lease, from random small rows,
// must land or be refused, and leave the lease columns, exactly as claimTransition / holdTransition say. An owed
// run's claim (`ifFree`, with the `heldEpoch` of `TaskLeases.claimIfFree`) is the model's `free-or-mine`; a commit
// from a sequence (`TaskStore.commitFrom`, issue 43's gap) is commitFromTransition.
import { LeaseLostError, type LeaseCondition, type Task, VersionConflictError } from '@taskwire/core';
import { createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { quoteSchema } from '../../postgres/src/schema-name.js';
import { claimTransition, commitFromTransition, holdTransition } from './db-transitions.js';
import type { Db, Status } from './model-state.js';

const TICK_MS = 1_000;
const TTL = 10;
const SEED = Number(process.env.MODEL_SEED ?? 4242);
const RUNS = Number(process.env.MODEL_TIE_RUNS ?? 50);
const STATE: Record<Status, Task['status']['state']> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
};

const caseArb = fc.record({
  from: fc.constantFrom<Status>('submitted', 'working', 'input-required'),
  holder: fc.constantFrom(null, 'r0', 'r1', 'r1'),
  epoch: fc.integer({ min: 1, max: 3 }),
  expires: fc.constantFrom(-3, -1, 1, 3),
  beat: fc.option(fc.constantFrom(-2, 2), { freq: 3 }),
  lease: fc.oneof(
    fc.record({ kind: fc.constant('claim' as const), ifFree: fc.boolean(), heldEpoch: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }) }),
    fc.record({ kind: fc.constant('hold' as const), epoch: fc.integer({ min: 1, max: 3 }) }),
  ),
  to: fc.constantFrom<Status>('submitted', 'working', 'input-required', 'completed'),
});

describePostgres("commits' lease conditions are claimTransition and holdTransition", (database) => {
  let S = '';
  let store: Awaited<ReturnType<typeof createPostgresTaskStore>>;
  let next = 0;

  beforeAll(async () => {
    const schema = await database.schema('tw_model');
    S = quoteSchema(schema);
    store = await createPostgresTaskStore({ pool: database.pool, schema });
    store.shareCommits();
  });
  afterAll(() => store.close());

  it('a claim (ifFree or not) and a hold land, are refused, and leave the lease as the model says', { timeout: 120_000 }, async () => {
    const pool = database.pool;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const id = `c${next++}`;
        const task = (state: Status): Task => ({ id, contextId: 'c', status: { state: STATE[state] } });
        await store.commit({ task: task(c.from), expectedVersion: 0, owner: 'o', events: [] });
        const at = (ticks: number) => `now() + ${ticks * TICK_MS} * interval '1 millisecond'`;
        const { holder } = c;
        await pool.query(`UPDATE ${S}.tasks SET lease_holder = $2, lease_epoch = $3, lease_expires_at = ${at(c.expires)}, lease_takeovers = 1 WHERE id = $1`, [
          id,
          holder,
          holder === null ? null : c.epoch,
        ]);
        await pool.query(`DELETE FROM ${S}.lease_heartbeats`);
        if (c.beat !== null) await pool.query(`INSERT INTO ${S}.lease_heartbeats (holder, expires_at) VALUES ('r1', ${at(c.beat)})`);
        const sequence = await pool.query<{ last_value: string; is_called: boolean }>(`SELECT last_value, is_called FROM ${S}.task_lease_epochs`);
        const db: Db = {
          now: 0,
          tasks: { [id]: { status: c.from, holder, epoch: holder === null ? null : c.epoch, expires: c.expires, takeovers: 1, seq: 0, messages: [] } },
          heartbeats: c.beat === null ? {} : { r1: c.beat },
          nextEpoch: Number(sequence.rows[0]!.last_value) + (sequence.rows[0]!.is_called ? 1 : 0),
          push: {},
          contracted: true,
        };
        const landed =
          c.lease.kind === 'claim'
            ? claimTransition(db, id, 'r0', TTL, c.to, c.lease.ifFree ? 'free-or-mine' : 'no', undefined, c.lease.ifFree ? c.lease.heldEpoch : undefined)
            : holdTransition(db, id, 'r0', c.lease.epoch, TTL, c.to);
        const lease: LeaseCondition =
          c.lease.kind === 'claim' ? { kind: 'claim', holder: 'r0', ttlMs: TTL * TICK_MS, ifFree: c.lease.ifFree, heldEpoch: c.lease.heldEpoch } : { kind: 'hold', holder: 'r0', epoch: c.lease.epoch, ttlMs: TTL * TICK_MS };
        const outcome = await store.commit({ task: task(c.to), expectedVersion: 1, owner: 'o', events: [], lease }).then(
          () => true,
          (error: unknown) => {
            if (error instanceof LeaseLostError) return false;
            throw error;
          },
        );
        expect(outcome).toBe(landed);
        const { rows } = await pool.query(
          `SELECT state, lease_holder, lease_epoch, round(extract(epoch from lease_expires_at - now()) * 1000 / ${TICK_MS})::int AS expires, lease_takeovers FROM ${S}.tasks WHERE id = $1`,
          [id],
        );
        const row = db.tasks[id]!;
        expect(rows[0]).toEqual({ state: STATE[row.status], lease_holder: row.holder, lease_epoch: row.epoch, expires: row.expires, lease_takeovers: row.takeovers });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
  it('a commit from a sequence (`commitFrom`, under a hold) lands or is refused and leaves the row as commitFromTransition says', { timeout: 120_000 }, async () => {
    const pool = database.pool;
    const fromArb = fc.record({
      from: fc.constantFrom<Status>('submitted', 'working', 'input-required'),
      holder: fc.constantFrom(null, 'r0', 'r0', 'r1'),
      epoch: fc.integer({ min: 1, max: 2 }),
      held: fc.integer({ min: 1, max: 2 }),
      seq: fc.integer({ min: 0, max: 4 }),
      // The first sequence around the stored last one: the guard's edge (equal) is the case that matters.
      offset: fc.integer({ min: -1, max: 2 }),
      to: fc.constantFrom<Status>('working', 'completed', 'failed'),
    });
    await fc.assert(
      fc.asyncProperty(fromArb, async (c) => {
        const id = `f${next++}`;
        const first = Math.max(1, c.seq + c.offset);
        const task = (state: Status): Task => ({ id, contextId: 'c', status: { state: STATE[state] } });
        await store.commit({ task: task(c.from), expectedVersion: 0, owner: 'o', events: [] });
        await pool.query(
          `UPDATE ${S}.tasks SET lease_holder = $2, lease_epoch = $3, lease_expires_at = now() + interval '5 seconds', lease_takeovers = 0, last_sequence = $4 WHERE id = $1`,
          [id, c.holder, c.holder === null ? null : c.epoch, c.seq],
        );
        const db: Db = {
          now: 0,
          tasks: { [id]: { status: c.from, holder: c.holder, epoch: c.holder === null ? null : c.epoch, expires: 5, takeovers: 0, seq: c.seq, messages: [] } },
          heartbeats: {},
          nextEpoch: 1,
          push: {},
          contracted: true,
        };
        const landed = commitFromTransition(db, id, first, 1, (d) => holdTransition(d, id, 'r0', c.held, TTL, c.to));
        const lease: LeaseCondition = { kind: 'hold', holder: 'r0', epoch: c.held, ttlMs: TTL * TICK_MS };
        const outcome = await store.commitFrom({ task: task(c.to), expectedVersion: 1, owner: 'o', events: [{ task: task(c.to) }], lease }, first).then(
          () => true,
          (error: unknown) => {
            if (error instanceof LeaseLostError || error instanceof VersionConflictError) return false;
            throw error;
          },
        );
        expect(outcome).toBe(landed);
        const { rows } = await pool.query(
          `SELECT state, lease_holder, lease_epoch, lease_expires_at IS NULL AS released, last_sequence::int AS seq FROM ${S}.tasks WHERE id = $1`,
          [id],
        );
        const row = db.tasks[id]!;
        expect(rows[0]).toEqual({ state: STATE[row.status], lease_holder: row.holder, lease_epoch: row.epoch, released: row.expires === null, seq: row.seq });
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
