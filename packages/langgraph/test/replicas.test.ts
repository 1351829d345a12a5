import { createClient } from '@taskwire/client';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { lastStatus, startReplica, stopReplicas, streamed, userMessage } from '../src/test-kit.js';

const REPLICA = new URL('./replica.ts', import.meta.url).pathname;
afterEach(stopReplicas);

describePostgres('langGraphAgent on a PostgreSQL cluster', (db) => {
  it('answers the pause at another replica after the first one was stopped (the task store and the checkpoints in the database)', async () => {
    const schema = await db.schema('tw_langgraph');
    const first = await startReplica(REPLICA, [db.url, schema]);
    const one = await createClient(first.url);
    const paused = await streamed(one, userMessage('Book me a flight'));
    expect(lastStatus(paused)).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which city?' }] } });
    const taskId = (await one.listTasks({})).tasks[0]!.id;
    await one.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startReplica(REPLICA, [db.url, schema]);
    const two = await createClient(second.url);
    const answered = await streamed(two, userMessage('Oslo', { taskId }));
    expect(lastStatus(answered)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: `Booked Oslo (replica ${second.child.pid}).` }] } });
    await two.close();
    await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}_graph" CASCADE`);
  }, 180_000);
});
