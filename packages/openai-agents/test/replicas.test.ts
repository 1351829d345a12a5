import { createClient } from '@taskwire/client';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { lastStatus, startReplica, stopReplicas, streamed, userMessage } from '../../langgraph/src/test-kit.js';

const REPLICA = new URL('./replica.ts', import.meta.url).pathname;
afterEach(stopReplicas);

describePostgres('openaiAgent on a PostgreSQL cluster', (db) => {
  it('resumes the paused run (its RunState in the task store) at another replica after the first one was stopped', async () => {
    const schema = await db.schema('tw_openai_agents');
    const first = await startReplica(REPLICA, [db.url, schema]);
    const one = await createClient(first.url);
    const paused = lastStatus(await streamed(one, userMessage('Book 2C')));
    expect(paused.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(paused.message?.parts?.[1]).toMatchObject({ data: { type: 'tool-approval-request', toolName: 'book', arguments: '{"seat":"2C"}' } });
    const taskId = (await one.listTasks({})).tasks[0]!.id;
    await one.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startReplica(REPLICA, [db.url, schema]);
    const two = await createClient(second.url);
    const answered = lastStatus(await streamed(two, userMessage('approve', { taskId })));
    expect(answered.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.message?.parts?.[0]).toMatchObject({ text: expect.stringContaining(`booked 2C at replica ${second.child.pid}`) });
    await two.close();
  }, 180_000);
});
