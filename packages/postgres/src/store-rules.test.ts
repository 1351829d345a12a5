import { A2AError, TaskService, VersionConflictError, type StreamResponse, type Task } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import { referenceAgent } from '@taskwire/reference-agent';
import { expect, it } from 'vitest';
import { countingPool } from './counting-pool-test-kit.js';
import { describePostgres } from './database-test-kit.js';
import { until } from './wait-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { TerminalTaskError } from './commit-refusal.js';
import { createPostgresTaskStore } from './task-store.js';

describePostgres('PostgresTaskStore rules of its own', (db) => {
  const open = async () => {
    const schema = await db.schema();
    return { schema, store: await createPostgresTaskStore({ pool: db.pool, schema }) };
  };

  it('never changes a terminal task, whatever version the writer names', async () => {
    const { store } = await open();
    const done = testTask('t1', { state: 'TASK_STATE_COMPLETED' });
    await store.commit(commitOf(done, 0, [testEvent(done, 1)]));
    const error = await store.commit(commitOf(testTask('t1', { state: 'TASK_STATE_WORKING', at: 5 }), 1, [testEvent(done, 2)])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TerminalTaskError);
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as Error).message).toMatch(/t1 is TASK_STATE_COMPLETED: a finished task never changes/);
    expect(await store.get('t1')).toEqual({ task: done, version: 1, owner: 'alice', lastSequence: 1 });
    expect(await store.readEvents('t1', 0)).toHaveLength(1);
    await store.close();
  });

  it('returns tasks and events exactly as given: key order, unicode, NUL inside text, numbers', async () => {
    const { store } = await open();
    const task: Task = {
      status: { timestamp: '2025-01-01T00:00:00.123456Z', state: 'TASK_STATE_WORKING' },
      contextId: 'ctx',
      id: 'exact',
      metadata: { zeta: 1, alpha: [1.5, -0, 1e21, null, true], 'emoji 🎉': 'naïve \u0000 nul \\ "quoted"', nested: { b: { a: {} } } },
    };
    const event: StreamResponse = { statusUpdate: { taskId: 'exact', contextId: 'ctx', status: task.status, metadata: { text: 'line\nbreak \u0000' } } };
    await store.commit(commitOf(task, 0, [event]));
    const read = await store.get('exact');
    expect(JSON.stringify(read!.task)).toBe(JSON.stringify(task));
    expect(JSON.stringify((await store.readEvents('exact', 0))[0]!.event)).toBe(JSON.stringify(event));
    expect(JSON.stringify((await store.list({ owner: 'alice', includeArtifacts: true })).tasks[0])).toBe(JSON.stringify(task));
    await store.close();
  });

  it('refuses ids, contexts and owners PostgreSQL cannot store with InvalidParams, before any SQL; lookups of them find nothing', async () => {
    const { store } = await open();
    const cases: [string, () => Promise<unknown>][] = [
      ['task id', () => store.commit(commitOf(testTask('bad\u0000id')))],
      ['contextId', () => store.commit(commitOf(testTask('t1', { contextId: 'c\u0000' })))],
      ['tenant', () => store.commit(commitOf(testTask('t1'), 0, [], 'al\u0000ice'))],
      ['task id', () => store.commit(commitOf(testTask('lone\uD800')))],
      ['contextId', () => store.list({ owner: 'alice', contextId: '\u0000' })],
    ];
    for (const [field, call] of cases) {
      const error = await call().catch((e: unknown) => e);
      expect(A2AError.is(error), field).toBe(true);
      expect(error).toMatchObject({ kind: 'InvalidParams', code: -32602, message: expect.stringContaining(field) });
    }
    expect(await store.get('bad\u0000id')).toBeUndefined();
    expect(await store.readEvents('bad\u0000id', 0)).toEqual([]);
    expect(await store.delete('lone\uDC00')).toBe(false);
    expect((await store.list({ owner: 'alice' })).totalSize).toBe(0);
    await store.close();
  });

  it('answers every ListTasks filter and the count from an index in cursor order, with no sort', async () => {
    const { schema, store } = await open();
    const S = quoteSchema(schema);
    const client = await db.pool.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plans: Record<string, string> = {};
      for (const [name, where, index] of [
        ['owner', "owner = 'a'", 'tasks_by_owner'],
        ['context', "owner = 'a' AND context_id = 'c'", 'tasks_by_context'],
        ['state', "owner = 'a' AND state = 'TASK_STATE_WORKING'", 'tasks_by_state'],
      ] as const) {
        const page = await client.query(`EXPLAIN SELECT id FROM ${S}.tasks WHERE ${where} AND status_key >= '2' AND (status_key, id) < ('3', 'x') ORDER BY status_key DESC, id DESC LIMIT 51`);
        const count = await client.query(`EXPLAIN SELECT count(*) FROM ${S}.tasks WHERE ${where}`);
        plans[name] = [...page.rows, ...count.rows].map((r) => r['QUERY PLAN']).join('\n');
        expect(plans[name], name).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using ${index}`));
        expect(plans[name], name).not.toMatch(/Sort|Seq Scan/);
      }
    } finally {
      client.release();
      await store.close();
    }
  });

  it('drops events older than maxEventAgeMs, by a periodic sweep or pruneEvents(), keeping the task; a read starts at the oldest kept', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const backdate = (task: string, through: number) =>
      db.pool.query(`UPDATE ${S}.task_events SET created_at = now() - interval '2 hours' WHERE task_id = $1 AND sequence <= $2`, [task, through]);
    const store = await createPostgresTaskStore({ pool: db.pool, schema, retention: { maxEventAgeMs: 3_600_000 } });
    const task = testTask('t1');
    await store.commit(commitOf(task, 0, [1, 2, 3].map((n) => testEvent(task, n))));
    await store.commit(commitOf(task, 1, [4, 5].map((n) => testEvent(task, n))));
    await backdate('t1', 3);
    expect(await store.pruneEvents()).toBe(3);
    expect((await store.readEvents('t1', 1)).map((e) => e.sequence)).toEqual([4, 5]);
    expect(await store.get('t1')).toMatchObject({ version: 2, lastSequence: 5 });
    await store.close();
    // The periodic sweep does the same on its own.
    const swept = await createPostgresTaskStore({ pool: db.pool, schema, retention: { maxEventAgeMs: 3_600_000, sweepIntervalMs: 20 } });
    await backdate('t1', 4);
    await until(async () => ((await swept.readEvents('t1', 0)).length === 1 ? true : undefined));
    expect((await swept.readEvents('t1', 0)).map((e) => e.sequence)).toEqual([5]);
    await swept.close();
    await expect(createPostgresTaskStore({ pool: db.pool, schema, retention: { maxEventsPerTask: 0 } })).rejects.toThrow(/retention.maxEventsPerTask must be a positive integer/);
  });

  it('costs a blocking echo SendMessage at most 2 round trips', async () => {
    const schema = await db.schema();
    const counting = countingPool(db.url);
    // No periodic count compaction: it would add its statement to the round trips counted.
    const store = await createPostgresTaskStore({ pool: counting.pool, schema, countCompactionIntervalMs: 0 });
    const service = new TaskService({ store, agent: referenceAgent });
    const echo = (text: string) => service.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
    await echo('echo warm up the connections and statements');
    const trips: number[] = [];
    for (let i = 0; i < 5; i++) {
      counting.reset();
      const result = await echo(`echo ${i}`);
      expect(result).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
      trips.push(counting.trips());
    }
    console.log(`round trips per blocking echo SendMessage: ${trips.join(', ')} (${counting.texts().map((t) => t.trim().split(/\s+/).slice(0, 4).join(' ')).join(' | ')})`);
    expect(Math.max(...trips)).toBeLessThanOrEqual(2);
    await service.close();
    await store.close();
    await counting.pool.end();
  });
});
