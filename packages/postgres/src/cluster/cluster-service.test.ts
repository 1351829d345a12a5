import type { A2AError, Agent, Message, StreamEvent, Task } from '@taskwire/core';
import { PROCESS_STOPPED, stateOf } from '@taskwire/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { openTestReplica, type TestReplica as Replica } from './replica-test-kit.js';

const user = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

/** Gates the test opens one by one, so an agent's steps happen when the test says. */
class Gates {
  private readonly waiting: (() => void)[] = [];
  private opened = 0;
  pass(): Promise<void> {
    if (this.opened > 0) return (this.opened--, Promise.resolve());
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  open(n = 1): void {
    for (let i = 0; i < n; i++) {
      const next = this.waiting.shift();
      if (next) next();
      else this.opened++;
    }
  }
}

/** What the replicas' agent did, seen from the test. */
const seen = { aborted: [] as string[], gates: new Gates() };

/** `steps n`: n working updates, each after a gate opens, then completes. `hold`: waits for its signal. `ask`: input-required, then completes with the answer. */
const agent: Agent = async (ctx) => {
  const [word, count] = ctx.text.split(' ');
  if (word === 'linger') {
    // Asks, then keeps running until a gate opens (tidying up while the answer may already run).
    await ctx.inputRequired('what now?');
    return seen.gates.pass();
  }
  if (ctx.isContinuation && word !== 'hold') return ctx.complete(`answer: ${ctx.text}`);
  if (word === 'ask') return ctx.inputRequired('what now?');
  if (word === 'hold') {
    await ctx.working('holding');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.aborted.push(ctx.task.id);
    return;
  }
  for (let i = 1; i <= Number(count); i++) {
    await seen.gates.pass();
    await ctx.working(`step ${i}`);
  }
  await ctx.complete('done');
};

describePostgres('several TaskServices on one schema (replicas in one process, real LISTEN/NOTIFY)', (db: TestDatabase) => {
  let schema: string;
  let replicas: Replica[];

  const replica = () => openTestReplica(db, schema, { agent, leaseTtlMs: 1_000 });
  const send = async (r: Replica, message: Message, returnImmediately = false): Promise<Task> => {
    const result = await r.service.unary('SendMessage', { message, configuration: { returnImmediately } });
    if (!('task' in result)) throw new Error('expected a task');
    return result.task;
  };
  const collect = async (events: AsyncIterable<StreamEvent>) => {
    const out: StreamEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  beforeEach(async () => {
    seen.gates = new Gates();
    seen.aborted = [];
    schema = await db.schema('tw_replicas');
    replicas = [await replica(), await replica()];
  });
  afterEach(async () => {
    for (const r of replicas) await r.close();
    await db.drop(schema);
  });

  it('follows a task run on another replica: the snapshot, then every event once and in order, to the end', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const task = await send(a, user('steps 6'), true);
    const followed = collect(await b.service.stream('SubscribeToTask', { id: task.id }));
    seen.gates.open(6);
    const events = await followed;
    expect('task' in events[0]!.response).toBe(true);
    const sequences = events.map((e) => e.sequence);
    expect(sequences.slice(1)).toEqual(Array.from({ length: sequences.length - 1 }, (_, i) => sequences[0]! + i + 1));
    expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
    // Resuming on the other replica from the middle replays exactly the rest.
    const cut = sequences[3]!;
    const resumed = await collect(await a.service.stream('SubscribeToTask', { id: task.id, afterSequence: cut }));
    expect(resumed).toEqual(events.filter((e) => e.sequence > cut));
  });

  it("a cancel on another replica aborts the agent's signal, ends the blocking call as canceled, and the replica's later writes are refused", async () => {
    const [a, b] = replicas as [Replica, Replica];
    const message = user('hold');
    const blocking = a.service.unary('SendMessage', { message });
    let task: Task | undefined;
    while (!task) task = (await b.store.list({ owner: '' })).tasks.find((t) => t.history?.[0]?.messageId === message.messageId && t.status.state === 'TASK_STATE_WORKING');
    const canceled = await b.service.unary('CancelTask', { id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const answer = await blocking;
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_CANCELED');
    await a.service.idle();
    expect(seen.aborted).toContain(task.id);
    expect((await a.service.unary('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
    const log = await b.store.readEvents(task.id, 0);
    expect(stateOf(log.at(-1)!.event)).toBe('TASK_STATE_CANCELED');
  });

  it('racing continuations of one task on two replicas: exactly one wins, the others get UnsupportedOperation, history holds the winner once', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const task = await send(a, user('ask'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answers = Array.from({ length: 30 }, (_, i) => user(`reply ${i}`, { taskId: task.id }));
    const outcomes = await Promise.allSettled(answers.map((m, i) => send(i % 2 ? a : b, m)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as A2AError).code).toBe(-32004);
    const final = await b.service.unary('GetTask', { id: task.id });
    expect(final.status.state).toBe('TASK_STATE_COMPLETED');
    const replies = (final.history ?? []).filter((m) => m.role === 'ROLE_USER' && answers.some((a) => a.messageId === m.messageId));
    expect(replies).toHaveLength(1);
  });

  it('a replica whose lease was taken over stops its run; its writes are refused, never applied', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const task = await send(a, user('steps 3'), true);
    seen.gates.open(1);
    // The task (1), then the first step (2).
    while ((await b.store.get(task.id))!.lastSequence < 2) await new Promise((resolve) => setImmediate(resolve));
    const before = (await b.store.get(task.id))!;
    // As if another replica had taken the lease over: the holder changes, the version does not.
    await db.pool.query(`UPDATE ${quoteSchema(schema)}.tasks SET lease_holder = 'someone else', lease_epoch = version WHERE id = $1`, [task.id]);
    seen.gates.open(2);
    await a.service.idle();
    const after = (await b.store.get(task.id))!;
    expect(after.version).toBe(before.version);
    expect(after.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it("settles the task of a replica that stopped with an agent message saying so; a subscriber on a live replica sees that end", async () => {
    const [, b] = replicas as [Replica, Replica];
    const S = quoteSchema(schema);
    const task: Task = { id: 'orphan-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [user('steps 9')] };
    // Written by a replica whose process is gone: its lease expired.
    await b.store.commit({ task, expectedVersion: 0, owner: '', events: [{ task }] });
    await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = '4242', lease_epoch = 1, lease_expires_at = now() - interval '1 second' WHERE id = $1`, [task.id]);
    const followed = collect(await b.service.stream('SubscribeToTask', { id: task.id }));
    // Any replica's periodic sweep may take the row before this start-up sweep does; which one settles it is not the point.
    expect((await b.service.recover()).filter((id) => id !== task.id)).toEqual([]);
    const events = await followed;
    const last = events.at(-1)!.response;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_FAILED');
    expect('statusUpdate' in last && last.statusUpdate.status.message?.parts).toEqual([{ text: PROCESS_STOPPED }]);
    const row = await db.pool.query(`SELECT lease_holder FROM ${S}.tasks WHERE id = $1`, [task.id]);
    expect(row.rows[0].lease_holder).toBeNull();
  });

  it('opt-in: a task whose replica stopped runs again on another, at most rerunOrphans times, then fails', async () => {
    // Only replicas that re-run orphans: a sweep of one that does not would fail the rows instead.
    for (const r of replicas.splice(0)) await r.close();
    const rerunning = await openTestReplica(db, schema, { agent, leaseTtlMs: 1_000, rerunOrphans: 1 });
    replicas.push(rerunning);
    const S = quoteSchema(schema);
    const orphan = async (id: string, takenOverBefore: number) => {
      const task: Task = { id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, history: [user('steps 1')] };
      await rerunning.store.commit({ task, expectedVersion: 0, owner: '', events: [{ task }] });
      await db.pool.query(`UPDATE ${S}.tasks SET lease_holder = '4242', lease_epoch = 1, lease_expires_at = now() - interval '1 second', lease_takeovers = $2 WHERE id = $1`, [
        id,
        takenOverBefore,
      ]);
    };
    await orphan('rerun-once', 0);
    await orphan('rerun-again', 1);
    const followed = collect(await rerunning.service.stream('SubscribeToTask', { id: 'rerun-once' }));
    // Its periodic sweep may take a row before this start-up sweep does; either way each row is taken once.
    const taken = await rerunning.service.recover();
    expect(taken.every((id) => id === 'rerun-once' || id === 'rerun-again') && new Set(taken).size === taken.length).toBe(true);
    seen.gates.open(1);
    const events = await followed;
    expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
    const again = await rerunning.service.unary('GetTask', { id: 'rerun-again' });
    expect(again.status.state).toBe('TASK_STATE_FAILED');
    expect(again.status.message?.parts).toEqual([{ text: PROCESS_STOPPED }]);
  });

  it('a draining replica refuses new messages with a retryable error, lets a run finish within the grace period and ends its streams', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const task = await send(a, user('steps 2'), true);
    const onA = collect(await a.service.stream('SubscribeToTask', { id: task.id }));
    const draining = a.service.drain(60_000);
    const refused = await a.service.unary('SendMessage', { message: user('steps 1') }).catch((e: A2AError) => e);
    expect((refused as A2AError).code).toBe(-32603);
    expect((refused as A2AError).metadata.retryable).toBe('true');
    seen.gates.open(2);
    await draining;
    expect((await b.service.unary('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_COMPLETED');
    // The stream on the drained replica ended (its client resumes elsewhere); nothing is left open.
    await onA;
    expect(a.service.engine.hub.count(task.id)).toBe(0);
  });

  it('overlapping runs: the older run ending late releases nothing of the newer, which no sweep fails; a cancel from another replica aborts the newer run', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const asked = await send(a, user('linger'));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    // The answer starts the second run on the same replica while the first one still runs.
    await send(a, user('hold', { taskId: asked.id }), true);
    while ((await a.store.get(asked.id))!.task.status.state !== 'TASK_STATE_WORKING') await new Promise((resolve) => setTimeout(resolve, 5));
    seen.gates.open(1);
    // Past the lease (1 s) and a sweep: had the first run's end released the second run's lease, B would fail the task now.
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect((await b.service.unary('GetTask', { id: asked.id })).status.state).toBe('TASK_STATE_WORKING');
    expect((await b.service.unary('CancelTask', { id: asked.id })).status.state).toBe('TASK_STATE_CANCELED');
    await a.service.idle();
    expect(seen.aborted).toContain(asked.id);
    expect((await a.service.unary('GetTask', { id: asked.id })).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('a request pool kept busy for twice the lease fails no healthy task: renewals have their own connections', async () => {
    const [, b] = replicas as [Replica, Replica];
    // A lease of 3 s: renewals every second, so a replica starved by a loaded machine still renews in time.
    const busy = await openTestReplica(db, schema, { agent, leaseTtlMs: 3_000, poolSize: 2 });
    replicas.push(busy);
    const task = await send(busy, user('hold'), true);
    // Every connection of the replica's request pool is taken (slow requests, a burst) for twice the lease.
    const taken = await Promise.all([busy.store.pool.connect(), busy.store.pool.connect()]);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await b.service.unary('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_WORKING');
    for (const client of taken) client.release();
    expect((await busy.service.unary('CancelTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
  });
});
