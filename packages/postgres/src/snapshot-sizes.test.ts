import type { StreamResponse, Task } from '@taskwire/core';
import { commitOf, reducedTask, streamAppends, testTask } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore } from './task-store.js';

/** The text of task `task`'s artifact `out`: its parts' texts, joined. */
const textOf = (task: Task | undefined) => (task?.artifacts ?? []).find((a) => a.artifactId === 'out')?.parts.map((p) => ('text' in p ? p.text : '')).join('');

describePostgres('PostgresTaskStore snapshots of a long stream', (db) => {
  it('rewrites a growing task no more than its events cost to log: the JSON written over a stream stays within the events logged and one more task', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    // Bounds that alone would rewrite the task every 10 events, its whole JSON each time (quadratic in the stream).
    const store = await createPostgresTaskStore({ pool: db.pool, schema, snapshots: { events: 10, ms: 60_000 } });
    type Row = { task: string; snapshot_sequence: string | null; pending_chars: string; pending: string };
    let written = 0;
    const { task } = await streamAppends(store, 300, async () => {
      const { rows } = await db.pool.query<Row>(
        `SELECT t.task, t.snapshot_sequence,
           (SELECT coalesce(sum(length(e.event)), 0) FROM ${S}.task_events e WHERE e.task_id = t.id AND e.sequence > t.snapshot_sequence) AS pending_chars,
           t.last_sequence - coalesce(t.snapshot_sequence, t.last_sequence) AS pending
         FROM ${S}.tasks t WHERE t.id = 't1'`,
      );
      const row = rows[0]!;
      if (row.snapshot_sequence === null) {
        written += row.task.length;
      }
      // What a read reduces onto the snapshot: within the event bound, or no more JSON than the snapshot's.
      if (Number(row.pending) > 10) expect(Number(row.pending_chars)).toBeLessThanOrEqual(row.task.length);
    });
    const { rows } = await db.pool.query<{ chars: string }>(`SELECT sum(length(event)) AS chars FROM ${S}.task_events`);
    // Each rewrite follows at least its predecessor's size of logged events: all of them together are at most
    // the events plus the last one (rewriting every 10 events, as the bounds alone would, is over twice that).
    expect(written).toBeLessThanOrEqual(Number(rows[0]!.chars) + JSON.stringify(task).length);
    expect((await store.get('t1'))?.task).toEqual(task);
    await store.close();
  });

  it('`snapshots: { events: 0 }` still writes the JSON at every commit, however small the commit is beside the task', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ pool: db.pool, schema, snapshots: { events: 0 } });
    await streamAppends(store, 5, async (expected) => {
      const { rows } = await db.pool.query<{ task: string; snapshot_sequence: string | null }>(`SELECT task, snapshot_sequence FROM ${S}.tasks WHERE id = 't1'`);
      expect(rows[0]).toEqual({ task: JSON.stringify(expected), snapshot_sequence: null });
    });
    await store.close();
  });

  it('a 10,000-chunk artifact reads as one artifact whose text is the concatenation: from another store, after a reopen, and its log from a resume point', async () => {
    const schema = await db.schema();
    const writer = await createPostgresTaskStore({ connectionString: db.url, schema });
    let task = testTask('t1', { history: 1 });
    let version = (await writer.commit(commitOf(task, 0, [{ task }]))).version;
    const chunk = (n: number): StreamResponse => ({
      artifactUpdate: { taskId: 't1', contextId: task.contextId, artifact: { artifactId: 'out', parts: [{ text: `chunk ${n}\n` }] }, append: n > 1, lastChunk: n === 10_000 },
    });
    // 200 commits of 50 chunks each: every one only appends.
    for (let first = 1; first <= 10_000; first += 50) {
      const events = Array.from({ length: 50 }, (_, k) => chunk(first + k));
      task = reducedTask(task, events);
      version = (await writer.commit({ ...commitOf(task, version, events), appendOnly: true })).version;
    }
    const expected = Array.from({ length: 10_000 }, (_, k) => `chunk ${k + 1}\n`).join('');
    const reader = await createPostgresTaskStore({ connectionString: db.url, schema });
    const read = await reader.get('t1');
    expect(read?.task).toEqual(task);
    expect(read?.task.artifacts).toHaveLength(1);
    expect(textOf(read?.task)).toBe(expected);
    await Promise.all([writer.close(), reader.close()]);
    const reopened = await createPostgresTaskStore({ connectionString: db.url, schema });
    expect(textOf((await reopened.get('t1'))?.task)).toBe(expected);
    // A resume after sequence 9,990 (the task, then chunks 1 to 9,989) gets chunks 9,990 to 10,000, as logged.
    const tail = await reopened.readEvents('t1', 9_990);
    expect(tail.map((e) => e.sequence)).toEqual(Array.from({ length: 11 }, (_, k) => 9_991 + k));
    expect(tail.map((e) => e.event)).toEqual(Array.from({ length: 11 }, (_, k) => chunk(9_990 + k)));
    await reopened.close();
  });
});
