import { TaskService, type StreamEvent, type StreamResponse, type Task } from '@taskwire/core';
import { commitOf, reducedTask, testTask } from '@taskwire/core/testing';
import { referenceAgent } from '@taskwire/reference-agent';
import { expect, it } from 'vitest';
import { countingPool } from './counting-pool-test-kit.js';
import { describePostgres } from './database-test-kit.js';
import { createPostgresTaskStore, type PostgresTaskStore } from './task-store.js';

const CHUNKS = 2_000;

/** Chunk `n` of artifact `out` of `task`: 100 characters of text. */
const chunk = (task: Task, n: number): StreamResponse => ({
  artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact: { artifactId: 'out', parts: [{ text: `${n}`.padEnd(100, '.') }] }, append: n > 1 },
});

/**
 * Stores anonymous task `id` streamed in {@link CHUNKS} chunks (commits of 50 that only append, so the
 * row's JSON lags its log), then completed unless `settle` is false; resolves the task and its last sequence.
 */
async function longTask(store: PostgresTaskStore, id: string, settle = true): Promise<{ task: Task; last: number }> {
  let task = testTask(id, { history: 1 });
  let version = (await store.commit(commitOf(task, 0, [{ task }], ''))).version;
  for (let first = 1; first <= CHUNKS; first += 50) {
    const events = Array.from({ length: 50 }, (_, k) => chunk(task, first + k));
    task = reducedTask(task, events);
    version = (await store.commit({ ...commitOf(task, version, events, ''), appendOnly: true })).version;
  }
  if (!settle) return { task, last: (await store.get(id))!.lastSequence };
  const done: StreamResponse = { statusUpdate: { taskId: id, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED' } } };
  task = reducedTask(task, [done]);
  const { lastSequence } = await store.commit(commitOf(task, version, [done], ''));
  return { task, last: lastSequence };
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describePostgres('PostgresTaskStore reads of a resumed subscription', (db) => {
  it('a SubscribeToTask resumed 10 events before the end of a long task fetches those events, not the task', async () => {
    const counting = countingPool(db.url);
    // No periodic count compaction: its statements would add to what is counted.
    const store = await createPostgresTaskStore({ pool: counting.pool, schema: await db.schema(), countCompactionIntervalMs: 0 });
    const { task, last } = await longTask(store, 'long');
    const taskChars = JSON.stringify(task).length;
    const service = new TaskService({ store, agent: referenceAgent });
    const logged = await store.readEvents('long', last - 10);
    counting.reset();
    const resumed = await collect(await service.SubscribeToTask({ id: 'long', afterSequence: last - 10 }, {}));
    const fetched = counting.fetched();
    expect(resumed).toEqual(logged.map((e) => ({ sequence: e.sequence, response: e.event })));
    expect(resumed.map((e) => e.sequence)).toEqual(Array.from({ length: 10 }, (_, k) => last - 9 + k));
    // What it read: the row's head, the first events (to see the resume point is kept) and the 10 events it sends.
    const sent = logged.reduce((sum, e) => sum + JSON.stringify(e.event).length, 0);
    expect(taskChars).toBeGreaterThan(200_000);
    expect(fetched).toBeLessThan(2 * sent + 200);
    await service.close();
    await store.close();
    await counting.pool.end();
  });

  it('a resume from before the events the store keeps starts with the task as it is now, read whole, and goes on live', async () => {
    const store = await createPostgresTaskStore({ pool: db.pool, schema: await db.schema(), retention: { maxEventsPerTask: 100 } });
    const { task, last } = await longTask(store, 'kept', false);
    const service = new TaskService({ store, agent: referenceAgent });
    const stream = (await service.SubscribeToTask({ id: 'kept', afterSequence: 5 }, {}))[Symbol.asyncIterator]();
    expect((await stream.next()).value).toEqual({ sequence: last, response: { task } });
    await stream.return?.(undefined);
    await service.close();
    await store.close();
  });
});
