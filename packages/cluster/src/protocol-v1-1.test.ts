import type { Message, Task } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, message, until } from './support/fault-kit.js';

/**
 * A2A 1.1 across replicas: two reference-agent processes serving it
 * (`--protocol-v1-1`) on one database. A first send's `Idempotency-Key`:
 * its retry goes to the replica that did not take it. GetTask's long poll:
 * it waits at one replica and is woken by a commit at the other.
 */
describePostgres('A2A 1.1 on 2 replica processes: idempotent first sends and long-poll GetTask across replicas', (db) => {
  let cluster: Cluster;

  beforeAll(async () => {
    const schema = await db.schema('tw_idempotent');
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
});
