import type { A2AError, Message, Task, TaskState, Transport } from '@taskwire/core';
import { isTerminal } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import { expect, it } from 'vitest';
import { storedLogProblems } from './support/logs.js';
import { roundRobin, withTenant } from './support/round-robin.js';
import { allSettled } from './support/settled.js';
import { useCluster } from './support/use-cluster.js';

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

async function send(transport: Transport, text: string, extra: Partial<Message> = {}): Promise<Task> {
  const result = await transport.unary('SendMessage', { message: message(text, extra) });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

describePostgres('races over 3 replicas on one database, calls spread over every replica and transport', (db) => {
  const cluster = useCluster(db, 3);
  /** Every replica on every transport, one after the other, under a tenant of the test's own. */
  const everywhere = () => {
    const tenant = `races-${crypto.randomUUID()}`;
    const all = BINDINGS.flatMap((binding) => [0, 1, 2].map((i) => cluster().transport(binding, i)));
    /** The task as each replica reads it (over JSON-RPC). */
    const onEveryReplica = (id: string) => Promise.all([0, 1, 2].map((i) => withTenant(cluster().transport('JSON-RPC', i), tenant).unary('GetTask', { id })));
    return { client: withTenant(roundRobin(all), tenant), onEveryReplica };
  };

  it('200 concurrent continuations of one input-required task: exactly one wins, the others get UnsupportedOperation, history holds the winner once', async () => {
    const { client, onEveryReplica } = everywhere();
    const task = await send(client, 'quote');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answers = Array.from({ length: 200 }, (_, i) => message(['insta', 'pinterest', 'general'][i % 3]!, { taskId: task.id }));
    const outcomes = await Promise.allSettled(answers.map((m) => client.unary('SendMessage', { message: m })));
    const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [answers[i]!] : []));
    expect(won).toHaveLength(1);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect((o.reason as A2AError).code, String(o.reason)).toBe(-32004);
    }
    const seen = await onEveryReplica(task.id);
    for (const copy of seen) expect(copy).toEqual(seen[0]);
    expect(seen[0]!.status.state).toBe('TASK_STATE_COMPLETED');
    const replies = (seen[0]!.history ?? []).filter((m) => answers.some((a) => a.messageId === m.messageId));
    expect(replies.map((m) => m.messageId)).toEqual([won[0]!.messageId]);
  }, 120_000);

  it('30 tasks each canceled and continued at once on different replicas: one terminal state each, the same on every replica, and an acknowledged cancel stays', async () => {
    const { client, onEveryReplica } = everywhere();
    const tasks = await Promise.all(Array.from({ length: 30 }, () => send(client, 'quote')));
    const raced = await Promise.all(
      tasks.map(async (task) => {
        const [cancel, resume] = await Promise.allSettled([client.unary('CancelTask', { id: task.id }), send(client, 'general', { taskId: task.id })]);
        return { task, cancel, resume };
      }),
    );
    await allSettled(client);
    for (const { task, cancel, resume } of raced) {
      const copies = await onEveryReplica(task.id);
      for (const copy of copies) expect(copy).toEqual(copies[0]);
      const final: TaskState = copies[0]!.status.state;
      expect(isTerminal(final), final).toBe(true);
      if (cancel.status === 'fulfilled') expect(final).toBe('TASK_STATE_CANCELED');
      else expect((cancel.reason as A2AError).code, String(cancel.reason)).toBe(-32002);
      if (resume.status === 'fulfilled') expect(resume.value.status.state).toBe(final);
      else expect((resume.reason as A2AError).code, String(resume.reason)).toBe(-32004);
    }
    // The logs agree: one lifecycle each, nothing after its terminal state.
    expect(await storedLogProblems(db.url, cluster().schema, raced.map((r) => r.task.id))).toEqual([]);
  }, 120_000);
});
