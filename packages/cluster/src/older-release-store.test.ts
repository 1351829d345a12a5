import { randomBytes } from 'node:crypto';
import type { Task } from '@taskwire/core';
import { streamAppends } from '@taskwire/core/testing';
import { createPostgresTaskStore, migrate, recordContractSteps } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { previousRelease, type Release } from './support/previous-release.js';
import { BEFORE_SNAPSHOT_LOGS, PREVIOUS_RELEASE } from './support/releases.js';

const parts = (task: Task | null | undefined) => task?.artifacts?.[0]?.parts.length ?? 0;

describePostgres('older releases writing, reading and sweeping beside this one (their own code, in processes of their own)', (db) => {
  let previous: Release;
  let beforeSnapshots: Release;
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((schema) => db.drop(schema))));
  beforeAll(() => {
    previous = previousRelease(PREVIOUS_RELEASE);
    beforeSnapshots = previousRelease(BEFORE_SNAPSHOT_LOGS);
  }, 240_000);

  /** A fresh schema migrated by each of `releases` in turn (older first), then by this release. */
  const schemaMigratedBy = async (...releases: Release[]) => {
    const schema = `tw_older_${randomBytes(5).toString('hex')}`;
    for (const release of releases) await release.probe(db.url, schema, 'migrate');
    await migrate({ pool: db.pool, schema });
    made.push(schema);
    return schema;
  };

  it('a release before snapshot logs reads a task this release streams, and settles it, without erasing a chunk', async () => {
    const schema = await schemaMigratedBy(beforeSnapshots);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    const { task } = await streamAppends(store, 6);
    expect(parts(task)).toBe(6);
    // Until the contract step, this release writes the whole JSON: the older release reads every chunk.
    expect(await beforeSnapshots.probe<Task>(db.url, schema, 'get', 't1')).toEqual(task);
    const failed = await beforeSnapshots.probe<Task>(db.url, schema, 'fail', 't1');
    expect(parts(failed)).toBe(6);
    const read = (await store.get('t1'))?.task;
    expect(read?.status.state).toBe('TASK_STATE_FAILED');
    expect(read?.artifacts).toEqual(task.artifacts);
    await store.close();
  });

  it("an older release's age sweep and writes, beside snapshots the previous release left behind the log: nothing erased, every read works", async () => {
    const schema = await schemaMigratedBy(beforeSnapshots, previous);
    // With the contract steps recorded, the previous release appends chunks to the log and leaves the JSON behind it.
    await recordContractSteps({ pool: db.pool, schema });
    const streamed = await previous.probe<Task>(db.url, schema, 'stream', 't1', '6');
    const S = `"${schema}"`;
    const { rows } = await db.pool.query<{ snapshot_sequence: string | null }>(`SELECT snapshot_sequence FROM ${S}.tasks WHERE id = 't1'`);
    expect(rows[0]?.snapshot_sequence).not.toBeNull();
    // The first chunk (sequence 2) is old, the later ones are not: a sweep that knows nothing of snapshots takes it alone.
    await db.pool.query(`UPDATE ${S}.task_events SET created_at = now() - interval '2 hours' WHERE sequence <= 2`);
    await beforeSnapshots.probe(db.url, schema, 'sweep', '3600000');
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    expect((await store.get('t1'))?.task).toEqual(streamed);
    expect((await store.list({ owner: 'alice', includeArtifacts: true })).tasks).toEqual([streamed]);
    expect(await previous.probe<Task>(db.url, schema, 'get', 't1')).toEqual(streamed);
    // The older release settles the task from the stale JSON it reads; the chunks logged after it stay.
    await beforeSnapshots.probe(db.url, schema, 'fail', 't1');
    const settled = (await store.get('t1'))?.task;
    expect(settled?.status.state).toBe('TASK_STATE_FAILED');
    expect(settled?.artifacts).toEqual(streamed.artifacts);
    expect((await previous.probe<{ tasks: Task[] }>(db.url, schema, 'list', 'alice')).tasks.map(parts)).toEqual([6]);
    await store.close();
  });
});
