import type { CommitRequest, LeaseCondition, TaskStore } from '@taskwire/core';
import { A2AError, LeaseLostError, TaskService } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../task-store.js';
import { clusterStatements } from './cluster-sql.js';
import { createPostgresCoordinator, type PostgresCoordinator } from './coordinator.js';

describePostgres('lease epochs never repeat for a task id (replicas on one schema)', (db: TestDatabase) => {
  let schema: string;
  let S: string;
  let store: PostgresTaskStore;
  let coordinator: PostgresCoordinator;
  const task = testTask('t1', { history: 1 });
  const claim = (): LeaseCondition => ({ kind: 'claim', holder: coordinator.processId, ttlMs: 60_000 });
  const hold = (epoch: number): LeaseCondition => ({ kind: 'hold', holder: coordinator.processId, epoch, ttlMs: 60_000 });
  const commit = (request: CommitRequest, lease: LeaseCondition) => store.commit({ ...request, lease });
  const row = async () => (await db.pool.query<{ version: number; lease_epoch: number }>(`SELECT version, lease_epoch FROM ${S}.tasks WHERE id = 't1'`)).rows[0]!;
  /** The coordinator's renewal of the lease of `t1` held at `epoch`: resolves the ids it found lost. */
  const renew = async (epoch: number) => (await db.pool.query<{ id: string }>(clusterStatements(S).renew, [coordinator.processId, ['t1'], [epoch], 60_000])).rows.map((r) => r.id);

  beforeEach(async () => {
    schema = await db.schema('tw_epochs');
    S = quoteSchema(schema);
    store = await createPostgresTaskStore({ pool: db.pool, schema });
    coordinator = await createPostgresCoordinator({ store, leaseTtlMs: 60_000 });
  });
  afterEach(async () => {
    await coordinator.close();
    await store.close();
    await db.drop(schema);
  });

  it('a run claimed at creation, its task deleted and created again with the same id and claimed: the stale run is refused', async () => {
    const first = await commit(commitOf(task, 0, [{ task }]), claim());
    const stale = first.leaseEpoch ?? first.version;
    expect((await row()).lease_epoch).toBe(stale);
    expect(await store.delete('t1')).toBe(true);
    // The same process creates the task again (version 1 again) and claims it for a new run.
    const second = await commit(commitOf(task, 0, [{ task }]), claim());
    expect(second.version).toBe(1);
    const current = second.leaseEpoch ?? second.version;
    expect(current).not.toBe(stale);
    expect((await row()).lease_epoch).toBe(current);
    // The deleted task's run is still going: its renewal finds its lease gone, and its commit (at the version this process knows) is refused.
    expect(await renew(stale)).toEqual(['t1']);
    await expect(commit(commitOf(task, 1, [testEvent(task, 1)]), hold(stale))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await row()).toEqual({ version: 1, lease_epoch: current });
    // The new run's lease is renewed and its commits stored.
    expect(await renew(current)).toEqual([]);
    await expect(commit(commitOf(task, 1, [testEvent(task, 1)]), hold(current))).resolves.toMatchObject({ version: 2 });
  });

  it('a run taken over, its task deleted and created again and claimed by a later commit: the taken-over run is refused', async () => {
    await store.commit(commitOf(task, 0, [{ task }]));
    await commit(commitOf(task, 1), claim());
    await db.pool.query(`UPDATE ${S}.tasks SET lease_expires_at = now() - interval '1 second' WHERE id = 't1'`);
    const taken = await db.pool.query<{ id: string; lease_epoch: number }>(clusterStatements(S).takeOver, [coordinator.processId, 60_000, false, 10, [], null]);
    expect(taken.rows.map((r) => r.id)).toEqual(['t1']);
    const stale = taken.rows[0]!.lease_epoch;
    expect(await store.delete('t1')).toBe(true);
    // The new incarnation reaches the version the take-over made (3) with the claim of its run.
    await store.commit(commitOf(task, 0, [{ task }]));
    await store.commit(commitOf(task, 1, [testEvent(task, 1)]));
    const claimed = await commit(commitOf(task, 2), claim());
    expect(claimed.version).toBe(3);
    const current = claimed.leaseEpoch ?? claimed.version;
    expect(current).not.toBe(stale);
    expect(await renew(stale)).toEqual(['t1']);
    await expect(commit(commitOf(task, 3, [testEvent(task, 2)]), hold(stale))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await row()).toEqual({ version: 3, lease_epoch: current });
  });

  it("an owed run's claim (ifFree) takes no lease of its holder at the epoch it held, and takes one at an epoch it never held when a claim made it (a claim whose answer was lost), never one a take-over made", async () => {
    const owed = (heldEpoch: number): LeaseCondition => ({ kind: 'claim', holder: coordinator.processId, ttlMs: 60_000, ifFree: true, heldEpoch });
    const first = await commit(commitOf(task, 0, [{ task }]), claim());
    const held = first.leaseEpoch!;
    // The run at `held` stopped here (given up): its own row, at that epoch, is the self-sweep's.
    await expect(commit(commitOf(task, 1), owed(held))).rejects.toBeInstanceOf(LeaseLostError);
    expect(await row()).toEqual({ version: 1, lease_epoch: held });
    // A later claim of this process whose answer was lost: the row is at an epoch the process never held, and is taken.
    const lost = await commit(commitOf(task, 1), claim());
    const taken = await commit(commitOf(task, 2), owed(held));
    expect(taken.leaseEpoch).toBeGreaterThan(lost.leaseEpoch!);
    expect(await row()).toEqual({ version: 3, lease_epoch: taken.leaseEpoch });
    // A take-over of this process whose answer was lost (an epoch it never held, but a take-over's): the self-sweep's too.
    await db.pool.query(`UPDATE ${S}.tasks SET lease_takeovers = 1 WHERE id = 't1'`);
    await expect(commit(commitOf(task, 3), owed(held))).rejects.toBeInstanceOf(LeaseLostError);
  });

  it.each([
    ['its run claims the task again, and its later commits hold that lease', ['started', 'done']],
    ['a task that ended with that commit is not claimed again', ['done']],
  ])("a new task's creating claim that landed with its answer lost: %s", async (_, steps) => {
    // The first attempt of the next commit is not stored; the second is, but its answer is lost.
    const faults: ('fail' | 'lose')[] = [];
    const lost = () => new A2AError('Internal', 'The connection to the task database was lost', { retryable: 'true' });
    const faulty: TaskStore = {
      get: (id) => store.get(id),
      commit: (request) => {
        const fault = faults.shift();
        if (fault === 'fail') return Promise.reject(lost());
        return fault === 'lose' ? store.commit(request).then(() => Promise.reject(lost())) : store.commit(request);
      },
      list: (query) => store.list(query),
      delete: (id) => store.delete(id),
      readEvents: (id, after, limit) => store.readEvents(id, after, limit),
      close: async () => {},
    };
    const service = new TaskService({
      store: faulty,
      coordinator,
      newTaskWindowMs: 60_000,
      agent: async (ctx) => {
        faults.push('fail', 'lose');
        if (steps.length > 1) await ctx.working('started');
        await ctx.complete('done');
      },
    });
    const sent = await service.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    const id = 'task' in sent ? sent.task.id : '';
    expect((await store.readEvents(id, 0)).map((e) => Object.keys(e.event)[0])).toEqual(['task', ...steps.map(() => 'statusUpdate')]);
    await service.close();
  });
});
