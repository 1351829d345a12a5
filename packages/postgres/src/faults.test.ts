import { jsonRpcTransport } from '@taskwire/client';
import { A2AError, TaskService, type Message } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import { referenceAgent } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore } from './task-store.js';
import { throwawayCluster } from './throwaway-cluster-test-kit.js';
import { until } from './wait-test-kit.js';

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

describePostgres('PostgreSQL faults', (db) => {
  it('answers with a retryable error while the database is down (no hang), stores nothing half-written, and serves again once it is back', async () => {
    const cluster = await throwawayCluster();
    const opened: (() => Promise<unknown>)[] = [];
    try {
      await migrate({ connectionString: cluster.url });
      const store = await createPostgresTaskStore({ connectionString: cluster.url, connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 });
      const service = new TaskService({ store, agent: referenceAgent });
      const server = await serveA2A({ service });
      opened.push(() => store.close(), () => service.close(), () => server.close());
      const client = jsonRpcTransport({ url: `${server.url}/a2a/jsonrpc` });
      const send = async (text: string) => {
        const result = await client.unary('SendMessage', { message: message(text) });
        if (!('task' in result)) throw new Error('expected a task');
        return result.task;
      };
      const before = await send('echo before');

      await cluster.stop();
      const calls = [() => send('echo while down'), () => client.unary('GetTask', { id: before.id }), () => client.unary('ListTasks', {})];
      for (const call of calls) {
        const error = await call().catch((e: unknown) => e);
        expect(A2AError.is(error)).toBe(true);
        expect(error).toMatchObject({ code: -32603, message: expect.stringMatching(/The task database is unreachable .* Retry the request shortly/) });
      }

      await cluster.start();
      const after = await send('echo after');
      expect(after.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await client.unary('GetTask', { id: before.id })).status.state).toBe('TASK_STATE_COMPLETED');
      const listed = await client.unary('ListTasks', {});
      expect(listed.tasks.map((t) => t.id).sort()).toEqual([before.id, after.id].sort());
    } finally {
      for (const close of opened.reverse()) await close().catch(() => undefined);
      await cluster.destroy();
    }
  }, 120_000);

  it('a commit whose connection dies is either all there or not at all, and the pool goes on', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ connectionString: db.url, schema, poolSize: 2 });
    const task = testTask('t1');
    await store.commit(commitOf(task, 0, [testEvent(task, 1)]));
    // Another session holds the row, so the commit waits inside its statement; then its connection is cut.
    const blocker = await db.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM ${S}.tasks WHERE id = 't1' FOR UPDATE`);
      const commit = store.commit(commitOf(testTask('t1', { at: 5 }), 1, [testEvent(task, 2), testEvent(task, 3)])).catch((e: unknown) => e);
      const pid = await until(async () => {
        const { rows } = await db.pool.query(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = 'taskwire' AND query LIKE '%WITH updated AS%' AND query LIKE $1",
          [`%${schema}%`],
        );
        return rows[0]?.pid as number | undefined;
      });
      await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const error = await commit;
      expect(A2AError.is(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'Internal', metadata: { retryable: 'true' }, message: expect.stringMatching(/either stored whole or not at all/) });
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect(await store.get('t1')).toMatchObject({ version: 1, lastSequence: 1, task });
    expect(await store.readEvents('t1', 0)).toHaveLength(1);
    expect(await store.commit(commitOf(testTask('t1', { at: 6 }), 1, [testEvent(task, 2)]))).toEqual({ version: 2, firstSequence: 2, lastSequence: 2 });
    await store.close();
  });

  it('refuses, over JSON-RPC, ids PostgreSQL cannot store with InvalidParams, and keeps NUL characters inside content', async () => {
    const schema = await db.schema();
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    const service = new TaskService({ store, agent: referenceAgent });
    const server = await serveA2A({ service });
    try {
      const client = jsonRpcTransport({ url: `${server.url}/a2a/jsonrpc` });
      const refused = await client.unary('SendMessage', { message: message('echo hi', { contextId: 'ctx\u0000x' }) }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/contextId must not contain the NUL character/) });
      const tenant = await client.unary('ListTasks', { tenant: 'a\u0000b' }).catch((e: unknown) => e);
      expect(tenant).toMatchObject({ code: -32602 });
      const kept = await client.unary('SendMessage', { message: message('echo nul \u0000 inside') });
      expect(kept).toMatchObject({ task: { status: { message: { parts: [{ text: 'nul \u0000 inside' }] } } } });
      const id = 'task' in kept ? kept.task.id : '';
      expect((await client.unary('GetTask', { id })).status.message?.parts).toEqual([{ text: 'nul \u0000 inside' }]);
      expect((await client.unary('GetTask', { id: 'no\u0000such' }).catch((e: unknown) => e))).toMatchObject({ code: -32001 });
    } finally {
      await server.close();
      await service.close();
      await store.close();
    }
  });
});
