import { PROCESS_STOPPED, stateOf, TAKE_OVER_SEQUENCE_GAP, type Agent, type StreamEvent, type StreamResponse, type Task } from '@taskwire/core';
import { afterEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { standbyCopy } from '../standby-test-kit.js';
import { openTestReplica, type TestReplica } from './replica-test-kit.js';

const text = (response: StreamResponse) => JSON.stringify(response);

/** Completes every run at once (a re-run of a taken-over task, here). */
const agent: Agent = async (ctx) => ctx.complete('done again');

describePostgres('a task taken over, from a gone holder or back by its own replica: its first commit after a gap, never under a number a client may have seen', (db: TestDatabase) => {
  const opened: TestReplica[] = [];
  afterEach(async () => {
    for (const replica of opened.splice(0)) await replica.close();
  });

  /**
   * A replica alone on a fresh schema, and a working task in it with a log
   * of 3 events whose lease names `holder` (expired, heartbeat gone unless
   * it is the replica's own): what a promoted standby holds when the
   * replica that ran the task died with it, its last commits unreplicated.
   * `lost`: the row is the replica's own, taken over (the answer lost) after
   * a failover lost two commits a client saw.
   */
  const orphanOf = async (holder: (replica: TestReplica) => string, rerunOrphans = 0, lost?: 'lost') => {
    const schema = await db.schema();
    const replica = await openTestReplica(db, schema, { agent, leaseTtlMs: 2_000, rerunOrphans });
    opened.push(replica);
    const id = `orphan-${crypto.randomUUID()}`;
    const task: Task = { id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [{ messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }], taskId: id, contextId: 'c' }] };
    const update = (n: number) => ({ statusUpdate: { taskId: id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const, timestamp: `2026-01-01T00:00:0${n}Z` } } });
    await replica.store.commit({ task, expectedVersion: 0, owner: '', events: [{ task }, update(1), update(2)] });
    if (lost) {
      // Another process commits two more events (a client sees 4 and `completed` at 5); the failover loses them.
      const promote = await standbyCopy(db.pool, quoteSchema(schema), id);
      const done: Task = { ...task, status: { state: 'TASK_STATE_COMPLETED' } };
      await replica.store.commit({ task: done, expectedVersion: 1, owner: '', events: [update(3), { task: done }] });
      expect((await replica.store.get(id))!.lastSequence).toBe(5);
      await promote();
    }
    // `lost`: the take-over of the row landed (its answer lost), so it is fresh with a take-over counted; else expired.
    await db.pool.query(
      `UPDATE ${quoteSchema(schema)}.tasks SET lease_holder = $2, lease_epoch = 1, lease_takeovers = $3::int,
         lease_expires_at = now() + ($3::int * interval '1 hour') - interval '1 second' WHERE id = $1`,
      [id, holder(replica), lost ? 1 : 0],
    );
    return { replica, id, stored: 3 };
  };

  const collect = async (events: AsyncIterable<StreamEvent>) => {
    const got: StreamEvent[] = [];
    for await (const event of events) got.push(event);
    return got;
  };

  it('fails it after the gap, the stored task logged first; a client resuming from inside the gap gets both', async () => {
    const { replica, id, stored } = await orphanOf(() => 'gone-replica#1');
    expect(await replica.service.recover()).toEqual([id]);
    const log = await replica.store.readEvents(id, 0);
    // 1..3 kept; the gone holder's later numbers (lost with the old primary) stay unused.
    expect(log.map((e) => e.sequence)).toEqual([1, 2, 3, stored + TAKE_OVER_SEQUENCE_GAP + 1, stored + TAKE_OVER_SEQUENCE_GAP + 2]);
    expect(log.at(-2)!.event).toEqual({ task: expect.objectContaining({ id, status: expect.objectContaining({ state: 'TASK_STATE_WORKING' }) }) });
    const failed = log.at(-1)!.event;
    expect('statusUpdate' in failed && failed.statusUpdate.status).toMatchObject({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: PROCESS_STOPPED }] } });
    // A client of the gone holder that saw sequence 4 (or further, before the failover) resumes: it gets the failed
    // task, only under numbers past the gap, never an event under one it may have seen.
    for (const after of [stored + 1, stored + 500]) {
      for (const resume of [() => replica.service.stream('SubscribeToTask', { id, afterSequence: after }), () => replica.service.resumeStreamingMessage({ id, afterSequence: after })]) {
        const events = await collect(await resume());
        expect(events.length).toBeGreaterThan(0);
        expect(events.every((e) => e.sequence > stored + TAKE_OVER_SEQUENCE_GAP)).toBe(true);
        expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_FAILED');
        expect(text(events.at(-1)!.response)).toContain(PROCESS_STOPPED.slice(0, 40));
      }
    }
  });

  it('a re-run of it commits its first event after the gap too, the stored task first', async () => {
    const { replica, id, stored } = await orphanOf(() => 'gone-replica#2', 1);
    expect(await replica.service.recover()).toEqual([id]);
    await expect.poll(async () => (await replica.store.get(id))!.task.status.state, { timeout: 30_000 }).toBe('TASK_STATE_COMPLETED');
    const all = await replica.store.readEvents(id, 0);
    expect(all.slice(0, 3).map((e) => e.sequence)).toEqual([1, 2, 3]);
    // The re-run's commits: the stored task at the gap's end, then the agent's events.
    expect(all[3]).toEqual({ sequence: stored + TAKE_OVER_SEQUENCE_GAP + 1, event: { task: expect.objectContaining({ id }) } });
    expect(all.slice(4).every((e, i) => e.sequence === stored + TAKE_OVER_SEQUENCE_GAP + 2 + i)).toBe(true);
    expect(stateOf(all.at(-1)!.event)).toBe('TASK_STATE_COMPLETED');
  });

  it("a replica's own row whose take-over answer was lost, after a failover lost commits a client saw, is settled after the gap, never under a seen number", async () => {
    const { replica, id, stored } = await orphanOf((r) => r.coordinator.processId, 0, 'lost');
    await expect.poll(async () => (await replica.store.get(id))!.task.status.state, { timeout: 30_000 }).toBe('TASK_STATE_FAILED');
    // Without the gap the self-sweep would store `failed` at 4, a number a client saw with `working`, and 5, seen with `completed`.
    expect((await replica.store.readEvents(id, 0)).map((e) => e.sequence)).toEqual([1, 2, 3, stored + TAKE_OVER_SEQUENCE_GAP + 1, stored + TAKE_OVER_SEQUENCE_GAP + 2]);
  });

  it("a task another replica canceled, the cancel lost in a failover, is settled by its runner's self-sweep after the gap, never under the canceled number", async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const waits: Agent = async (ctx) => {
      await ctx.working('on it');
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    };
    const r0 = await openTestReplica(db, schema, { agent: waits, leaseTtlMs: 2_000 });
    opened.push(r0);
    const r1 = await openTestReplica(db, schema, { agent, leaseTtlMs: 2_000 });
    opened.push(r1);
    const sent = await r0.service.unary('SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] }, configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    await expect.poll(async () => (await r0.store.get(id))!.task.status.state, { timeout: 30_000 }).toBe('TASK_STATE_WORKING');
    const stored = (await r0.store.get(id))!.lastSequence;
    const promote = await standbyCopy(db.pool, S, id);
    // The client cancels at r1 and sees `canceled` under the next number; r0 hears it and its run stops.
    expect((await r1.service.unary('CancelTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    const seen = (await r1.store.get(id))!.lastSequence;
    expect(seen).toBe(stored + 1);
    await expect.poll(() => r0.service.engine.peek(id), { timeout: 30_000 }).toBeUndefined();
    // The failover lost the cancel: the promoted row is working, under r0's lease, which nothing renews any more.
    await promote();
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = $2, lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id, r0.coordinator.processId]);
    await expect.poll(async () => (await r0.store.get(id))!.task.status.state, { timeout: 30_000 }).toBe('TASK_STATE_FAILED');
    const log = await r0.store.readEvents(id, 0);
    expect(log.some((e) => e.sequence === seen)).toBe(false);
    expect(log.slice(-2).map((e) => e.sequence)).toEqual([stored + TAKE_OVER_SEQUENCE_GAP + 1, stored + TAKE_OVER_SEQUENCE_GAP + 2]);
    expect(text(log.at(-1)!.event)).toContain(PROCESS_STOPPED.slice(0, 40));
  });
});
