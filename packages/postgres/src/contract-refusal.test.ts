import { expect, it } from 'vitest';
import { recordContractSteps } from './contract-steps.js';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { insertTask, until } from './cluster/coordinator-test-kit.js';
import { createPostgresTaskStore } from './task-store.js';
import { LEASE_HEARTBEATS_STEP } from './cluster/heartbeat-migration.js';

describePostgres('contract refuses while a replica of a release without the step holds a live lease', (db) => {
  it('names the holders of live leases that have no heartbeat, records nothing, and records once they are gone (a holder that beats is this release)', async () => {
    const schema = await db.schema('tw_contract_refusal');
    const S = quoteSchema(schema);
    // A schema an earlier release used: the step waits for `contract`.
    await db.pool.query(`DELETE FROM ${S}.taskwire_contract_steps WHERE step = $1`, [LEASE_HEARTBEATS_STEP]);
    const steps = async () => (await db.pool.query<{ step: string }>(`SELECT step FROM ${S}.taskwire_contract_steps ORDER BY step`)).rows.map((r) => r.step);
    // A release without heartbeats runs one task (its live lease, no heartbeat row); a replica of this release runs another (it beats).
    await insertTask(db.pool, S, 'old-run', 'TASK_STATE_WORKING', { holder: 'older#1', expiresInMs: 60_000 });
    await insertTask(db.pool, S, 'new-run', 'TASK_STATE_WORKING', { holder: 'newer#2', expiresInMs: 60_000 });
    await db.pool.query(`INSERT INTO ${S}.lease_heartbeats (holder, expires_at) VALUES ('newer#2', now() + interval '1 minute')`);
    // An expired lease of a holder gone long ago is no replica.
    await insertTask(db.pool, S, 'stale-run', 'TASK_STATE_WORKING', { holder: 'gone#3', expiresInMs: -60_000 });
    const before = await steps();

    await expect(recordContractSteps({ pool: db.pool, schema })).rejects.toThrow(/refused: .*holders: older#1\)/);
    expect(await steps()).toEqual(before);

    // That replica was replaced: its task settled (a terminal commit releases the lease).
    await db.pool.query(`UPDATE ${S}.tasks SET state = 'TASK_STATE_COMPLETED', lease_holder = NULL, lease_epoch = NULL, lease_expires_at = NULL WHERE id = 'old-run'`);
    expect(await recordContractSteps({ pool: db.pool, schema })).toEqual([LEASE_HEARTBEATS_STEP]);
    // Recorded already: nothing to refuse, whatever holds leases now.
    await insertTask(db.pool, S, 'older-again', 'TASK_STATE_WORKING', { holder: 'older#4', expiresInMs: 60_000 });
    expect(await recordContractSteps({ pool: db.pool, schema })).toEqual([]);
    await db.drop(schema);
  });

  it("the README's statement that undoes the step before a rollback switches it off in a running store", async () => {
    const schema = await db.schema('tw_contract_undo');
    const store = await createPostgresTaskStore({ pool: db.pool, schema, contractRefreshMs: 100 });
    try {
      expect(store.hasContractStep(LEASE_HEARTBEATS_STEP)).toBe(true);
      await db.pool.query(`DELETE FROM ${quoteSchema(schema)}.taskwire_contract_steps WHERE step = 'lease-heartbeats'`);
      await until(() => !store.hasContractStep(LEASE_HEARTBEATS_STEP), 'the store to read the steps again', 10_000);
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });
});
