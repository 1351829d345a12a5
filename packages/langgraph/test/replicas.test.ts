import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { pauseThenAnswerElsewhere, stopReplicas } from '@taskwire/reference-agent/adapter-test-kit';

afterEach(stopReplicas);

describePostgres('langGraphAgent on a PostgreSQL cluster', (db) => {
  it('answers the pause at another replica after the first one was stopped (the task store and the checkpoints in the database)', async () => {
    const schema = await db.schema('tw_langgraph');
    const replica = new URL('./replica.ts', import.meta.url).pathname;
    const { paused, answered, second } = await pauseThenAnswerElsewhere(replica, [db.url, schema], 'Book me a flight', 'Oslo');
    expect(paused).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which city?' }] } });
    expect(answered).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: `Booked Oslo (replica ${second.child.pid}).` }] } });
    await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}_graph" CASCADE`);
  }, 180_000);
});
