import { randomBytes } from 'node:crypto';
import type { LogFields, Task } from '@taskwire/core';
import { streamAppends } from '@taskwire/core/testing';
import { afterAll, expect, it } from 'vitest';
import { recordContractSteps } from './contract-steps.js';
import { describePostgres } from './database-test-kit.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore } from './task-store.js';

const parts = (task: Task | undefined) => task?.artifacts?.[0]?.parts.length ?? 0;

describePostgres('PostgresTaskStore beside older releases (migration 5 and the contract steps)', (db) => {
  const made: string[] = [];
  afterAll(() => Promise.all(made.map((schema) => db.drop(schema))));

  /** A schema a release before snapshot logs made (versions 1 to 3, applied in an earlier transaction), then migrated by this one. */
  const upgradedFromVersion3 = async () => {
    const schema = `tw_guard_${randomBytes(5).toString('hex')}`;
    made.push(schema);
    const S = quoteSchema(schema);
    await db.pool.query(`CREATE SCHEMA ${S}`);
    await db.pool.query(`CREATE TABLE ${S}.taskwire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const step of MIGRATIONS.slice(0, 3)) {
      await db.pool.query(step.sql(S));
      await db.pool.query(`INSERT INTO ${S}.taskwire_migrations (version, name) VALUES ($1, $2)`, [step.version, step.name]);
    }
    await migrate({ pool: db.pool, schema });
    return { schema, S };
  };

  const snapshotOf = async (S: string) =>
    (await db.pool.query<{ snapshot_sequence: string | null; task: string }>(`SELECT snapshot_sequence, task FROM ${S}.tasks WHERE id = 't1'`)).rows[0]!;

  it('on a schema upgraded from a release before snapshot logs, every commit writes the task JSON until `contract` is recorded', async () => {
    const { schema, S } = await upgradedFromVersion3();
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    await streamAppends(store, 3, async (task) => {
      // What an older release reads (the JSON alone) is the whole task after every commit.
      expect(await snapshotOf(S)).toEqual({ snapshot_sequence: null, task: JSON.stringify(task) });
    });
    expect(await recordContractSteps({ pool: db.pool, schema })).toEqual(['snapshot-logs', 'lease-heartbeats']);
    expect(await recordContractSteps({ pool: db.pool, schema })).toEqual([]);
    const after = await createPostgresTaskStore({ pool: db.pool, schema });
    const { task } = await streamAppends(after, 3, async () => undefined, 't2');
    expect((await db.pool.query(`SELECT snapshot_sequence FROM ${S}.tasks WHERE id = 't2' AND snapshot_sequence IS NOT NULL`)).rowCount).toBe(1);
    expect((await after.get('t2'))?.task).toEqual(task);
    await Promise.all([store.close(), after.close()]);
  });

  it("keeps the events a stale snapshot lacks from any delete (an older release's sweep), and folds their chunks into an older writer's JSON", async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const store = await createPostgresTaskStore({ pool: db.pool, schema });
    const { task } = await streamAppends(store, 4);
    const stale = await snapshotOf(S);
    expect(stale.snapshot_sequence).not.toBeNull();
    // An older release's age sweep: every event, whatever its task's snapshot lacks.
    const swept = await db.pool.query(`DELETE FROM ${S}.task_events`);
    expect(swept.rowCount).toBe(Number(stale.snapshot_sequence));
    expect((await store.get('t1'))?.task).toEqual(task);
    // An older release settles the task from the JSON it reads (the stale snapshot) and knows nothing of snapshot_sequence.
    const old = JSON.parse(stale.task) as Task;
    const failed: Task = { ...old, status: { state: 'TASK_STATE_FAILED', timestamp: '2030-01-01T00:00:00.000Z' } };
    await db.pool.query(`UPDATE ${S}.tasks SET task = $1, state = 'TASK_STATE_FAILED', version = version + 1 WHERE id = 't1'`, [JSON.stringify(failed)]);
    const read = (await store.get('t1'))?.task;
    expect(read).toEqual({ ...failed, artifacts: task.artifacts });
    expect(parts(read)).toBe(4);
    // Now that the JSON is current, the events can go; a task's own delete takes its whole log.
    expect((await db.pool.query(`DELETE FROM ${S}.task_events WHERE task_id = 't1'`)).rowCount).toBeGreaterThan(0);
    await streamAppends(store, 2, async () => undefined, 't2');
    expect(await store.delete('t2')).toBe(true);
    expect((await db.pool.query(`SELECT 1 FROM ${S}.task_events WHERE task_id = 't2'`)).rowCount).toBe(0);
    await store.close();
  });

  it('one damaged row never fails a ListTasks page: a log that does not follow is read without the bad event, JSON that does not parse is left out; both are logged', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const logged: LogFields[] = [];
    const logger = { warn: (fields: LogFields) => logged.push(fields), error: (fields: LogFields) => logged.push(fields) };
    const store = await createPostgresTaskStore({ pool: db.pool, schema, logger });
    for (const id of ['t1', 't2', 't3']) await streamAppends(store, 3, async () => undefined, id);
    // t1 loses its first chunk (the artifact the appends need), bypassing the guard as a hand-run repair might; t2's JSON is broken.
    await db.pool.query(`ALTER TABLE ${S}.task_events DISABLE TRIGGER task_event_kept`);
    await db.pool.query(`DELETE FROM ${S}.task_events WHERE task_id = 't1' AND event LIKE '%"append":false%'`);
    await db.pool.query(`ALTER TABLE ${S}.task_events ENABLE TRIGGER task_event_kept`);
    await db.pool.query(`UPDATE ${S}.tasks SET task = '{"id": "t2", broken' , snapshot_sequence = NULL WHERE id = 't2'`);
    const { tasks } = await store.list({ owner: 'alice', includeArtifacts: true });
    expect(tasks.map((t) => [t.id, parts(t)])).toEqual([
      ['t3', 3],
      ['t1', 0],
    ]);
    expect((await store.get('t1'))?.task.id).toBe('t1');
    await expect(store.get('t2')).rejects.toThrow(/JSON/);
    expect(logged.map((fields) => fields.taskId)).toEqual(expect.arrayContaining(['t1', 't2']));
    await store.close();
  });
});
