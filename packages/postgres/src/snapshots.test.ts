import type { Task } from '@taskwire/core';
import { commitOf, reducedTask, streamAppends, testChunk, testTimestamp } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStoreOptions } from './task-store.js';

describePostgres('PostgresTaskStore snapshots behind the event log', (db) => {
  const open = async (options: Partial<PostgresTaskStoreOptions> = {}) => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ pool: db.pool, schema, ...options });
    const row = async (id = 't1') =>
      (await db.pool.query<{ task: string; snapshot_sequence: string | null; last_sequence: string }>(`SELECT task, snapshot_sequence, last_sequence FROM ${S}.tasks WHERE id = $1`, [id])).rows[0]!;
    return { schema, S, store, row };
  };

  it('an append-only commit logs its events without rewriting the task JSON, which is written again every `events` events and at a state change', async () => {
    const { store, row } = await open({ snapshots: { events: 10, ms: 60_000 } });
    const snapshots: string[] = [];
    const written: number[] = [];
    const { task, version } = await streamAppends(store, 12, async (_task, at) => {
      const { task: json, snapshot_sequence } = await row();
      if (snapshots.at(-1) !== json) snapshots.push(json);
      if (snapshot_sequence === null) written.push(at);
    });
    // The create wrote the JSON; then 10 commits append (versions 2 to 11), the 11th writes it, and so on.
    expect(written).toEqual([12, 23]);
    expect(snapshots).toHaveLength(3);
    expect((JSON.parse(snapshots[0]!) as Task).artifacts).toBeUndefined();
    expect((await row()).snapshot_sequence).not.toBeNull();
    const done: Task = reducedTask(task, [{ statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: testTimestamp(99) } } }]);
    await store.commit(commitOf(done, version, []));
    expect(await row()).toMatchObject({ task: JSON.stringify(done), snapshot_sequence: null });
    await store.close();
  });

  it('stays within the retention bound: the JSON is written before an event it lacks could be pruned', async () => {
    const { store, row } = await open({ retention: { maxEventsPerTask: 3 } });
    const { task } = await streamAppends(store, 10, async (expected) => {
      const { snapshot_sequence, last_sequence } = await row();
      if (snapshot_sequence !== null) expect(Number(last_sequence) - Number(snapshot_sequence)).toBeLessThanOrEqual(3);
      expect((await store.get('t1'))?.task).toEqual(expected);
    });
    expect(task.artifacts?.[0]?.parts).toHaveLength(10);
    await store.close();
  });

  it('the age sweep keeps the events the JSON lacks', async () => {
    const { S, store } = await open({ retention: { maxEventAgeMs: 3_600_000 } });
    const { task } = await streamAppends(store, 3);
    await db.pool.query(`UPDATE ${S}.task_events SET created_at = now() - interval '2 hours'`);
    const { rows } = await db.pool.query<{ snapshot_sequence: string }>(`SELECT snapshot_sequence FROM ${S}.tasks`);
    // Every event up to the snapshot goes; the ones after it stay, and the task reads whole.
    expect(await store.pruneEvents()).toBe(Number(rows[0]!.snapshot_sequence));
    expect((await store.get('t1'))?.task).toEqual(task);
    await store.close();
  });

  it('another store writing the task in between (an older release, another replica) makes the next commit write the JSON', async () => {
    const { schema, S, store, row } = await open();
    const { task, version } = await streamAppends(store, 4);
    expect((await row()).snapshot_sequence).not.toBeNull();
    // An older release's update writes the task JSON and knows nothing of snapshot_sequence: the migration's trigger clears it.
    const rewritten: Task = { ...task, metadata: { by: 'older release' } };
    await db.pool.query(`UPDATE ${S}.tasks SET task = $1, version = version + 1 WHERE id = 't1'`, [JSON.stringify(rewritten)]);
    expect(await row()).toMatchObject({ snapshot_sequence: null });
    expect((await store.get('t1'))?.task).toEqual(rewritten);
    // This store's next append-only commit names a version it did not write: it writes the whole task.
    const other = await createPostgresTaskStore({ pool: db.pool, schema });
    const next = reducedTask(rewritten, [testChunk(rewritten, 5)]);
    await other.commit({ ...commitOf(next, version + 1, [testChunk(rewritten, 5)]), appendOnly: true });
    expect(await row()).toMatchObject({ task: JSON.stringify(next), snapshot_sequence: null });
    expect((await store.get('t1'))?.task).toEqual(next);
    await Promise.all([store.close(), other.close()]);
  });
});
