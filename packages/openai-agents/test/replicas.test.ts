import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { pauseThenAnswerElsewhere, stopReplicas } from '@taskwire/reference-agent/adapter-test-kit';

afterEach(stopReplicas);

describePostgres('openaiAgent on a PostgreSQL cluster', (db) => {
  it('resumes the paused run (its RunState in the task store) at another replica after the first one was stopped', async () => {
    const schema = await db.schema('tw_openai_agents');
    const replica = new URL('./replica.ts', import.meta.url).pathname;
    const { paused, answered, second } = await pauseThenAnswerElsewhere(replica, [db.url, schema], 'Book 2C', 'approve');
    expect(paused.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(paused.message?.parts?.[1]).toMatchObject({ data: { type: 'tool-approval-request', toolName: 'book', arguments: '{"seat":"2C"}' } });
    expect(answered.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.message?.parts?.[0]).toMatchObject({ text: expect.stringContaining(`booked 2C at replica ${second.child.pid}`) });
  }, 180_000);
});
