import type { Agent, Message, StreamEvent, Task } from '@taskwire/core';
import { LeaseLostError, stateOf } from '@taskwire/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { countingPool } from '../counting-pool-test-kit.js';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { openTestReplica, type TestReplica } from './replica-test-kit.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/** A promise and the function that resolves it. */
const latch = () => {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
};

/** Per test: the gate every run waits for first, the one it waits for after its first update, and who reached it. */
let gates = { start: latch(), burst: latch(), reached: new Map<string, () => void>() };
/** What became of each burst's emits, per task id (set once every emit settled). */
const outcomes = new Map<string, PromiseSettledResult<void>[]>();
/** Per task id, resolved once its burst's emits all settled. */
let settled = new Map<string, () => void>();

/**
 * `burst k`: waits for the start gate, commits update 0, waits for the
 * burst gate, then emits updates 1..k without awaiting any (the way a
 * token stream does), records how each emit settled, and completes.
 */
const agent: Agent = async (ctx) => {
  await gates.start.wait;
  const k = Number(ctx.text.split(' ')[1]);
  await ctx.working(undefined, { metadata: { i: 0 } });
  gates.reached.get(ctx.task.id)?.();
  await gates.burst.wait;
  const emits: Promise<void>[] = [];
  for (let i = 1; i <= k; i++) emits.push(ctx.working(undefined, { metadata: { i } }));
  outcomes.set(ctx.task.id, await Promise.allSettled(emits));
  settled.get(ctx.task.id)?.();
  await ctx.complete('done');
};

describePostgres("a run's events emitted while its previous commit is in flight go in its next commit (two replicas)", (db: TestDatabase) => {
  let schema: string;
  let counting: ReturnType<typeof countingPool>;
  let replicas: TestReplica[];
  const collect = async (events: AsyncIterable<StreamEvent>) => {
    const out: StreamEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };
  /**
   * Starts `burst k` runs on replica a, each followed by a subscriber on
   * both replicas; resolves once each run's update 0 is committed, with the
   * tasks, their subscribers' events (per task: replica a's, replica b's)
   * and when each burst's emits have all settled.
   */
  const start = async (count: number, k: number) => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const tasks: Task[] = [];
    const reached: Promise<void>[] = [];
    const bursts: Promise<void>[] = [];
    for (let n = 0; n < count; n++) {
      const result = await a.service.unary('SendMessage', { message: user(`burst ${k}`), configuration: { returnImmediately: true } });
      if (!('task' in result)) throw new Error('expected a task');
      tasks.push(result.task);
      const [arrived, done] = [latch(), latch()];
      gates.reached.set(result.task.id, arrived.open);
      settled.set(result.task.id, done.open);
      reached.push(arrived.wait);
      bursts.push(done.wait);
    }
    const followed: Promise<StreamEvent[]>[][] = [];
    for (const task of tasks) {
      const pair = [collect(await a.service.stream('SubscribeToTask', { id: task.id })), collect(await b.service.stream('SubscribeToTask', { id: task.id }))];
      // A subscriber of a run that never ends is cut when its replica closes: nothing to report then.
      for (const one of pair) one.catch(() => undefined);
      followed.push(pair);
    }
    gates.start.open();
    await Promise.all(reached);
    return { tasks, followed, bursts: Promise.all(bursts) };
  };
  /** The statements on replica a's pool that appended to a task's log. */
  const commits = () => counting.texts().filter((text) => /INSERT INTO .*task_events/s.test(text)).length;
  /** Checks that each subscriber of `task` saw its snapshot, then exactly its log after it, ending completed. */
  const seesLog = async (task: Task, seen: StreamEvent[][]) => {
    const log = await replicas[1]!.store.readEvents(task.id, 0);
    for (const events of seen) {
      expect('task' in events[0]!.response).toBe(true);
      const after = log.filter((e) => e.sequence > events[0]!.sequence);
      expect(events.slice(1).map((e) => [e.sequence, e.response])).toEqual(after.map((e) => [e.sequence, e.event]));
      expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
    }
    return log.flatMap((e) => ('statusUpdate' in e.event && e.event.statusUpdate.metadata?.i !== undefined ? [e.event.statusUpdate.metadata.i] : []));
  };

  beforeEach(async () => {
    gates = { start: latch(), burst: latch(), reached: new Map() };
    outcomes.clear();
    settled = new Map();
    schema = await db.schema('tw_grouped_commits');
    counting = countingPool(db.url);
    replicas = [await openTestReplica(db, schema, { agent, leaseTtlMs: 10_000, pool: counting.pool }), await openTestReplica(db, schema, { agent, leaseTtlMs: 10_000 })];
  });
  afterEach(async () => {
    for (const r of replicas) await r.close();
    await counting.pool.end();
    await db.drop(schema);
  });

  it('stores a burst in fewer commits than events; every emit resolves; subscribers on both replicas see each event once, in order', async () => {
    const K = 40;
    const { tasks, followed } = await start(1, K);
    const [task] = tasks as [Task];
    counting.reset();
    gates.burst.open();
    const seen = await Promise.all(followed[0]!);
    // Update 1 goes alone (nothing in flight); 2..K wait for it and go together; then the completion.
    expect(commits()).toBeLessThan(K / 4);
    expect(outcomes.get(task.id)!.map((o) => o.status)).toEqual(Array.from({ length: K }, () => 'fulfilled'));
    expect(await seesLog(task, seen)).toEqual(Array.from({ length: K + 1 }, (_, i) => i));
  });

  it("a lost lease fails every event of its run's group, and only that run's", async () => {
    const K = 20;
    const { tasks, followed, bursts } = await start(2, K);
    const [lost, kept] = tasks as [Task, Task];
    // Another replica took the lost run's lease after its update 0 (the version unchanged: the refusal says lease lost).
    await db.pool.query(`UPDATE ${quoteSchema(schema)}.tasks SET lease_holder = 'replica-z#0009', lease_epoch = lease_epoch + 1 WHERE id = $1`, [lost.id]);
    counting.reset();
    gates.burst.open();
    await bursts;
    const isLost = (o: PromiseSettledResult<void>) => o.status === 'rejected' && o.reason instanceof LeaseLostError;
    expect(outcomes.get(lost.id)!.map(isLost)).toEqual(Array.from({ length: K }, () => true));
    expect(outcomes.get(kept.id)!.map((o) => o.status)).toEqual(Array.from({ length: K }, () => 'fulfilled'));
    expect(await seesLog(kept, await Promise.all(followed[1]!))).toEqual(Array.from({ length: K + 1 }, (_, i) => i));
    // Both runs' bursts in a few statements (shared: one turn's commits of both runs go in one), not one per event.
    expect(commits()).toBeLessThan(K / 2);
    const lostLog = await replicas[1]!.store.readEvents(lost.id, 0);
    expect(lostLog.flatMap((e) => ('statusUpdate' in e.event && e.event.statusUpdate.metadata?.i !== undefined ? [e.event.statusUpdate.metadata.i] : []))).toEqual([0]);
  });
});
