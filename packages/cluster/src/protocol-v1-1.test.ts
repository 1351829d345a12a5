import type { Message, Task } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS, connectTransport } from '@taskwire/reliability/support/transports';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, message, until } from './support/fault-kit.js';

/**
 * A2A 1.1 across replicas: two reference-agent processes serving it
 * (`--protocol-v1-1`) on one database. A first send's `Idempotency-Key`:
 * its retry goes to the replica that did not take it. GetTask's long poll:
 * it waits at one replica and is woken by a commit at the other. Two
 * messages with one `ifGenerationMatch`, one at each replica: one is taken.
 */
describePostgres('A2A 1.1 on 2 replica processes: idempotent first sends, long-poll GetTask and conditional sends across replicas', (db) => {
  let cluster: Cluster;
  let schema: string;

  beforeAll(async () => {
    schema = await db.schema('tw_idempotent');
    cluster = await Cluster.start({ size: 2, databaseUrl: db.url, schema, args: ['--protocol-v1-1'] });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  });

  it.each(BINDINGS)('over %s: a retry while the first runs, and one after it ended, answer with its task; another message with the key is refused', async (binding) => {
    const [first, other] = [cluster.transport(binding, 0), cluster.transport(binding, 1)];
    const contextId = crypto.randomUUID();
    const sent: Message = { ...message('slow 6 100'), contextId };
    const keyed = { headers: { 'idempotency-key': crypto.randomUUID() } };
    const send = (to: typeof first, m: Message) => to.unary('SendMessage', { message: m }, keyed).then((r) => ('task' in r ? r.task : undefined));
    const original = send(first, sent);
    let running: Task | undefined;
    await until(async () => (running = (await other.unary('ListTasks', { contextId })).tasks[0]) !== undefined, 'the first send to store its task', 15_000);
    const retried = await send(other, sent);
    const answered = await original;
    expect(retried?.id).toBe(running!.id);
    expect(answered?.id).toBe(running!.id);
    expect(retried?.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await send(other, sent))?.artifacts).toEqual(answered?.artifacts);
    // One task, one run: its history holds the message once and its artifact six chunks.
    const { tasks } = await other.unary('ListTasks', { contextId, includeArtifacts: true });
    expect(tasks.map((t) => t.id)).toEqual([running!.id]);
    expect(tasks[0]!.artifacts?.[0]?.parts).toHaveLength(6);
    expect(tasks[0]!.history?.filter((m) => m.role === 'ROLE_USER')).toHaveLength(1);
    const refused = await send(first, { ...sent, parts: [{ text: 'echo another' }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'IdempotencyKeyReused' });
    expect(crashed(cluster)).toEqual([]);
  }, 60_000);

  it.each(['JSON-RPC', 'HTTP+JSON', 'gRPC'] as const)('over %s: a GetTask waiting at one replica for the next generation answers once a message at the other moves it', async (binding) => {
    const v11 = { headers: { 'a2a-version': '1.1' } };
    const [here, there] = [cluster.transport(binding, 0), cluster.transport(binding, 1)];
    const asked = await here.unary('SendMessage', { message: message('quote please') }, v11);
    const task = 'task' in asked ? asked.task : expect.fail('expected a task');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await there.unary('GetTask', { id: task.id, currentGeneration: task.generation! - 1 }, v11)).generation).toBe(task.generation);
    const poll = there.unary('GetTask', { id: task.id, currentGeneration: task.generation }, v11);
    await here.unary('SendMessage', { message: message('insta', task.id) }, v11);
    const moved = await poll;
    expect(moved.generation).toBeGreaterThan(task.generation!);
    expect((await there.unary('GetTask', { id: task.id }, v11)).generation).toBeGreaterThanOrEqual(moved.generation!);
  }, 60_000);

  it.each(BINDINGS)('over %s: two messages matching one generation, one at each replica at once: one is taken, the other is TaskGenerationMismatch', async (binding) => {
    // Every call in A2A 1.1 (the WebSocket one with its upgrade).
    const at = (i: number) => connectTransport(binding, cluster.replicas[i]!.urls, { 'a2a-version': '1.1' });
    const [here, there] = [at(0), at(1)];
    const lock = await db.pool.connect();
    try {
      const asked = await here.unary('SendMessage', { message: message('quote please') });
      const task = 'task' in asked ? asked.task : expect.fail('expected a task');
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      // The test holds the task's row: both replicas read the task at its generation, and both commits wait on the row.
      await lock.query('BEGIN');
      await lock.query(`SELECT 1 FROM ${schema}.tasks WHERE id = $1 FOR UPDATE`, [task.id]);
      const sent = [message('insta', task.id), message('pinterest', task.id)];
      const outcomes = Promise.allSettled(
        [here, there].map((to, i) => to.unary('SendMessage', { message: sent[i]!, configuration: { ifGenerationMatch: task.generation } })),
      );
      // Commits of this schema's tasks waiting on a lock: on the test's, or on the one that goes first after it.
      const waiting = async () => Number((await db.pool.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0", [`${schema}".tasks`])).rows[0].n);
      await until(async () => (await waiting()) >= 2, 'both commits to wait on the task', 30_000);
      await lock.query('ROLLBACK');
      const [a, b] = await outcomes;
      const won = [a, b].findIndex((o) => o!.status === 'fulfilled');
      const lost = [a, b].findIndex((o) => o!.status === 'rejected');
      expect([won, lost].sort()).toEqual([0, 1]);
      expect((([a, b][lost] as PromiseRejectedResult).reason as { kind?: string }).kind).toBe('TaskGenerationMismatch');
      const after = await there.unary('GetTask', { id: task.id });
      expect(after.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId)).toEqual([task.history![0]!.messageId, sent[won]!.messageId]);
      expect(after.generation).toBeGreaterThan(task.generation!);
      // ListTasks (PostgreSQL's list) gives the task the generation GetTask gives.
      expect((await here.unary('ListTasks', { contextId: task.contextId })).tasks.map((t) => t.generation)).toEqual([after.generation]);
      expect(crashed(cluster)).toEqual([]);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
      await Promise.all([here.close(), there.close()]);
    }
  }, 60_000);
});
