import type { Message, Task } from '@taskwire/core';
import { describePostgres } from '@taskwire/postgres/testing';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { crashed, message, until } from './support/fault-kit.js';

/**
 * A first send's `Idempotency-Key` across replicas: two reference-agent
 * processes serving the 1.1 candidates (`--protocol-v1-1`) on one database;
 * the retry of a send goes to the replica that did not take it.
 */
describePostgres('idempotent first sends: the retry arrives at another replica (2 replica processes)', (db) => {
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
});
