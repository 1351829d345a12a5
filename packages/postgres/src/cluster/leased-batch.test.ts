import { LeaseLostError, VersionConflictError, type LeaseCondition, type Task } from '@taskwire/core';
import { commitOf, testProgress, testTask } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { countingPool } from '../counting-pool-test-kit.js';
import { describePostgres } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore } from '../task-store.js';

const HOLDER = 'replica-a#0001';
const claim: LeaseCondition = { kind: 'claim', holder: HOLDER, ttlMs: 60_000 };
const hold = (epoch: number): LeaseCondition => ({ kind: 'hold', holder: HOLDER, epoch, ttlMs: 60_000 });

describePostgres("a replica's leased commits in batches (one statement per turn, each row fenced alone)", (db) => {
  /** A store sharing its tables as a replica's does, on a pool that counts statements, and `n` tasks it claimed. */
  const open = async (n: number) => {
    const counting = countingPool(db.url);
    const schema = await db.schema('tw_leased_batch');
    const store = await createPostgresTaskStore({ pool: counting.pool, schema });
    store.shareCommits();
    const tasks = Array.from({ length: n }, (_, i) => testTask(`t${i}`, { history: 1 }));
    const epochs: number[] = [];
    for (const task of tasks) epochs.push((await store.commit({ ...commitOf(task, 0, [{ task }]), lease: claim })).leaseEpoch!);
    const commits = () => counting.texts().filter((text) => !text.includes('pg_notify'));
    const close = async () => (await store.close(), await counting.pool.end(), await db.drop(schema));
    return { counting, store, tasks, epochs, commits, S: quoteSchema(schema), close };
  };
  const progressed = (task: Task, n: number) => ({ ...task, metadata: { n } });

  it("stores the commits of many runs made in one turn in one statement, each keeping its run's lease", async () => {
    const { counting, store, tasks, epochs, commits, S, close } = await open(10);
    counting.reset();
    const results = await Promise.all(tasks.map((task, i) => store.commit({ ...commitOf(progressed(task, 1), 1, [testProgress(task, 1)]), lease: hold(epochs[i]!) })));
    expect(commits()).toHaveLength(1);
    expect(results).toEqual(tasks.map(() => ({ version: 2, firstSequence: 2, lastSequence: 2 })));
    const { rows } = await db.pool.query<{ id: string; lease_holder: string; lease_epoch: number; version: number }>(`SELECT id, lease_holder, lease_epoch, version FROM ${S}.tasks ORDER BY id`);
    expect(rows.map((row) => [row.lease_holder, row.lease_epoch, row.version])).toEqual([...tasks].sort((a, b) => a.id.localeCompare(b.id)).map((task) => [HOLDER, epochs[tasks.indexOf(task)], 2]));
    await close();
  });

  it("a lost lease refuses only its own run's commit; the others in the statement land", async () => {
    const { counting, store, tasks, epochs, commits, S, close } = await open(5);
    // Another replica took t2's lease without its version moving (the refusal says: lease lost), and t4 moved on (a version conflict).
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = 'replica-b#0002', lease_epoch = lease_epoch + 1 WHERE id = 't2'`);
    await db.pool.query(`UPDATE ${S}.tasks SET version = version + 1 WHERE id = 't4'`);
    counting.reset();
    const outcomes = await Promise.allSettled(tasks.map((task, i) => store.commit({ ...commitOf(progressed(task, 1), 1, [testProgress(task, 1)]), lease: hold(epochs[i]!) })));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(LeaseLostError);
    expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
    // The batch, then one probe per refused commit saying why.
    expect(commits()).toHaveLength(3);
    expect(await store.get('t2')).toMatchObject({ version: 1, lastSequence: 1 });
    expect(await store.get('t3')).toMatchObject({ version: 2, lastSequence: 2 });
    expect((await store.readEvents('t2', 0)).map((e) => e.sequence)).toEqual([1]);
    await close();
  });

  it("claims and holds share a statement: a claim draws its own new epoch, an ending commit releases its task's lease", async () => {
    const { counting, store, tasks, epochs, commits, S, close } = await open(3);
    counting.reset();
    const [claimed, held, ended] = await Promise.all([
      store.commit({ ...commitOf(progressed(tasks[0]!, 1), 1, [testProgress(tasks[0]!, 1)]), lease: claim }),
      store.commit({ ...commitOf(progressed(tasks[1]!, 1), 1, [testProgress(tasks[1]!, 1)]), lease: hold(epochs[1]!) }),
      store.commit({ ...commitOf({ ...tasks[2]!, status: { state: 'TASK_STATE_COMPLETED' } }, 1, []), lease: hold(epochs[2]!) }),
    ]);
    expect(commits()).toHaveLength(1);
    expect(claimed!.leaseEpoch).toBeGreaterThan(Math.max(...epochs));
    expect(held!.leaseEpoch).toBeUndefined();
    expect(ended!.version).toBe(2);
    const lease = async (id: string) => (await db.pool.query<{ lease_holder: string | null; lease_epoch: number | null }>(`SELECT lease_holder, lease_epoch FROM ${S}.tasks WHERE id = $1`, [id])).rows[0];
    expect(await lease('t0')).toEqual({ lease_holder: HOLDER, lease_epoch: claimed!.leaseEpoch });
    expect(await lease('t1')).toEqual({ lease_holder: HOLDER, lease_epoch: epochs[1] });
    expect(await lease('t2')).toEqual({ lease_holder: null, lease_epoch: null });
    await close();
  });
});
