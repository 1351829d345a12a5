import type { CoordinatorHost } from '@taskwire/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { abortRequestPayload, parseAbortRequest } from './abort-requests.js';
import { createPostgresCoordinator, type PostgresCoordinator } from './coordinator.js';
import { insertTask, until } from './coordinator-test-kit.js';
import { parsePayload } from './names.js';

describePostgres('abort requests between replicas', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  let store: PostgresTaskStore;
  let a: PostgresCoordinator;
  let b: PostgresCoordinator;

  beforeEach(async () => {
    schema = await db.schema('tw_abort_requests');
    S = quoteSchema(schema);
    store = await createPostgresTaskStore({ pool: db.pool, schema });
    [a, b] = await Promise.all([createPostgresCoordinator({ store }), createPostgresCoordinator({ store })]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
    await store.close();
    await db.drop(schema);
  });

  it('reach the live replica holding the running task, are asked of nobody else, and commit nothing', async () => {
    const task = (id: string, state: string, holder: string, expiresInMs: number) => insertTask(db.pool, S, id, state, { holder, expiresInMs });
    await task('running', 'TASK_STATE_WORKING', a.processId, 60_000);
    await task('own', 'TASK_STATE_WORKING', b.processId, 60_000);
    await task('asking', 'TASK_STATE_INPUT_REQUIRED', a.processId, 60_000);
    await task('gone', 'TASK_STATE_WORKING', 'gone#1', -1_000);
    // Nobody to ask: the holder is the asking replica, the task is not running, its holder is gone (no heartbeat, the row expired).
    expect(await b.requestAbort('own', 2_000)).toBe(false);
    expect(await b.requestAbort('asking', 2_000)).toBe(false);
    expect(await b.requestAbort('gone', 2_000)).toBe(false);
    expect(await b.requestAbort('missing', 2_000)).toBe(false);

    const heard: [string, number][] = [];
    const host: CoordinatorHost = { settleOrphan: async () => undefined, abortRun: async (taskId, graceMs) => void heard.push([taskId, graceMs]) };
    a.attach(host);
    const before = (await db.pool.query(`SELECT version, last_sequence, lease_holder FROM ${S}.tasks WHERE id = 'running'`)).rows[0];
    expect(await b.requestAbort('running', 2_500)).toBe(true);
    await until(() => heard.length > 0, 'the request at the holder');
    expect(heard).toEqual([['running', 2_500]]);
    // Not a commit: the row is as it was.
    expect((await db.pool.query(`SELECT version, last_sequence, lease_holder FROM ${S}.tasks WHERE id = 'running'`)).rows[0]).toEqual(before);
  });

  it("say nothing a replica of an older release would act on: its payload reading finds no commit in one", () => {
    const payload = abortRequestPayload('task 1', 2_000);
    expect(parsePayload(payload)).toBeUndefined();
    expect(parseAbortRequest(payload)).toEqual({ taskId: 'task 1', graceMs: 2_000 });
    expect(parseAbortRequest('7 task 1')).toBeUndefined();
  });
});
