import { VersionConflictError, type Task } from '@taskwire/core';
import { commitOf, reducedTask, testChunk, testProgress, testTask } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { countingPool } from './counting-pool-test-kit.js';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStoreOptions } from './task-store.js';

describePostgres('PostgresTaskStore batched commits', (db) => {
  const open = async (options: Partial<PostgresTaskStoreOptions> = {}) => {
    const counting = countingPool(db.url);
    // No periodic count compaction: it would add its statement to the round trips counted.
    const store = await createPostgresTaskStore({ pool: counting.pool, schema: await db.schema(), countCompactionIntervalMs: 0, ...options });
    return { counting, store, close: async () => (await store.close(), await counting.pool.end()) };
  };
  const created = async (store: Awaited<ReturnType<typeof open>>['store'], n: number) => {
    const tasks = Array.from({ length: n }, (_, i) => testTask(`t${i}`, { history: 1 }));
    await Promise.all(tasks.map((task) => store.commit(commitOf(task, 0, [{ task }]))));
    return tasks;
  };

  it('stores the updates of many tasks made in one turn in one statement, each resolving its own result', async () => {
    const { counting, store, close } = await open();
    const tasks = await created(store, 12);
    counting.reset();
    // Half write the task, half only append: one statement for all of them.
    const next = tasks.map((task, i) => (i % 2 ? reducedTask(task, [testChunk(task, 1)]) : { ...task, metadata: { i } }));
    const results = await Promise.all(
      next.map((task, i) => store.commit({ ...commitOf(task, 1, i % 2 ? [testChunk(tasks[i]!, 1)] : [testProgress(task, 1), testProgress(task, 2)]), appendOnly: i % 2 === 1 })),
    );
    expect(counting.trips()).toBe(1);
    expect(results).toEqual(next.map((_, i) => ({ version: 2, firstSequence: 2, lastSequence: i % 2 ? 2 : 3 })));
    for (const [i, task] of next.entries()) {
      expect(await store.get(task.id)).toMatchObject({ task, version: 2, lastSequence: i % 2 ? 2 : 3 });
      expect((await store.readEvents(task.id, 1)).map((e) => e.sequence)).toEqual(i % 2 ? [2] : [2, 3]);
    }
    await close();
  });

  it('a refused commit in a batch rejects alone; the others are stored', async () => {
    const { counting, store, close } = await open();
    const tasks = await created(store, 4);
    counting.reset();
    const outcomes = await Promise.allSettled(tasks.map((task, i) => store.commit(commitOf({ ...task, metadata: { i } }, i === 2 ? 7 : 1, [testProgress(task, 1)]))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
    // The batch, then the probe saying why t2 was refused.
    expect(counting.trips()).toBe(2);
    expect(await store.get('t2')).toMatchObject({ task: tasks[2], version: 1, lastSequence: 1 });
    expect(await store.get('t3')).toMatchObject({ version: 2, lastSequence: 2 });
    await close();
  });

  it('commits of one task made in one turn are stored in order, one batch after the other', async () => {
    const { store, close } = await open();
    const [task] = (await created(store, 1)) as [Task];
    const first = reducedTask(task, [testChunk(task, 1)]);
    const second = reducedTask(first, [testChunk(task, 2)]);
    const [a, b, racing] = await Promise.allSettled([
      store.commit({ ...commitOf(first, 1, [testChunk(task, 1)]), appendOnly: true }),
      store.commit({ ...commitOf(second, 2, [testChunk(task, 2)]), appendOnly: true }),
      store.commit(commitOf({ ...task, metadata: { late: true } }, 1, [])),
    ]);
    expect([a, b].map((o) => o.status === 'fulfilled' && o.value)).toEqual([
      { version: 2, firstSequence: 2, lastSequence: 2 },
      { version: 3, firstSequence: 3, lastSequence: 3 },
    ]);
    expect(racing.status === 'rejected' && racing.reason).toBeInstanceOf(VersionConflictError);
    expect((await store.get('t0'))?.task).toEqual(second);
    await close();
  });

  it('stores the task and event JSON of a batch byte for byte, as a commit alone does (quotes, escapes, lone surrogates, NUL escapes)', async () => {
    const { counting, store, close } = await open();
    const tasks = await created(store, 3);
    const tricky = 'say "hi" \\ back\\slash \n\u0000 \ud800 lone \udc00 \u2028 😀 é';
    const next = tasks.map((task, i) => ({ ...task, metadata: { tricky, i } }));
    const events = tasks.map((task) => [{ ...testProgress(task, 1), metadata: { tricky } }]);
    counting.reset();
    await Promise.all(next.map((task, i) => store.commit(commitOf(task, 1, events[i]!))));
    expect(counting.trips()).toBe(1);
    const { rows } = await db.pool.query<{ id: string; task: string; event: string }>(
      `SELECT t.id, t.task, e.event FROM ${quoteSchema(store.schema)}.tasks t JOIN ${quoteSchema(store.schema)}.task_events e ON e.task_id = t.id AND e.sequence = 2 ORDER BY t.id`,
    );
    expect(rows.map((row) => [row.task, row.event])).toEqual(next.map((task, i) => [JSON.stringify(task), JSON.stringify(events[i]![0])]));
    expect((await store.get('t1'))?.task).toEqual(next[1]);
    await close();
  });

  it('with batchCommits: false, every commit is a statement of its own', async () => {
    const { counting, store, close } = await open({ batchCommits: false });
    const tasks = await created(store, 3);
    counting.reset();
    await Promise.all(tasks.map((task) => store.commit(commitOf({ ...task, metadata: {} }, 1, []))));
    expect(counting.trips()).toBe(3);
    await close();
  });
});
