import type { Agent, Message, StreamEvent, Task } from '@taskwire/core';
import { stateOf } from '@taskwire/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { countingPool } from '../counting-pool-test-kit.js';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { openTestReplica, type TestReplica } from './replica-test-kit.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/** Opened by the test once every subscriber is in place. */
let gate = { wait: Promise.resolve(), open: () => {} };

/** `count k`: waits for the gate, then k working updates carrying their number, then completes. */
const agent: Agent = async (ctx) => {
  await gate.wait;
  const k = Number(ctx.text.split(' ')[1]);
  for (let i = 1; i <= k; i++) await ctx.working(undefined, { metadata: { i } });
  await ctx.complete('done');
};

describePostgres("subscribers of runs whose leased commits share statements (two replicas, real LISTEN/NOTIFY)", (db: TestDatabase) => {
  let schema: string;
  let replicas: TestReplica[];
  /** The running replica's pool, counting its statements. */
  let counting: ReturnType<typeof countingPool>;
  const collect = async (events: AsyncIterable<StreamEvent>) => {
    const out: StreamEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  };

  beforeEach(async () => {
    let open!: () => void;
    gate = { wait: new Promise<void>((resolve) => (open = resolve)), open };
    schema = await db.schema('tw_leased_batch_replicas');
    counting = countingPool(db.url);
    replicas = [await openTestReplica(db, schema, { agent, leaseTtlMs: 2_000, pool: counting.pool }), await openTestReplica(db, schema, { agent, leaseTtlMs: 2_000 })];
  });
  afterEach(async () => {
    for (const r of replicas) await r.close();
    await counting.pool.end();
    await db.drop(schema);
  });

  it('many runs streaming at once on one replica: on both replicas every subscriber sees each event once, in order, to the end', async () => {
    const [a, b] = replicas as [TestReplica, TestReplica];
    const K = 12;
    const tasks: Task[] = [];
    for (let n = 0; n < 10; n++) {
      const result = await a.service.unary('SendMessage', { message: user(`count ${K}`), configuration: { returnImmediately: true } });
      if (!('task' in result)) throw new Error('expected a task');
      tasks.push(result.task);
    }
    // Every subscriber in place (on the running replica and the other) before any event.
    const followed: Promise<StreamEvent[]>[] = [];
    for (const task of tasks) for (const r of [a, b]) followed.push(collect(await r.service.stream('SubscribeToTask', { id: task.id })));
    counting.reset();
    gate.open();
    const seen = await Promise.all(followed);
    // The runs' leased commits share statements: far fewer event inserts than the 10 × (K + 1) events they stored.
    const inserts = counting.texts().filter((text) => /INSERT INTO .*task_events/s.test(text)).length;
    expect(inserts).toBeGreaterThan(0);
    expect(inserts).toBeLessThan((10 * (K + 1)) / 2);
    for (const [n, task] of tasks.entries()) {
      const log = await b.store.readEvents(task.id, 0);
      for (const events of [seen[2 * n]!, seen[2 * n + 1]!]) {
        // The snapshot, then exactly the log after it: every sequence once, in order.
        expect('task' in events[0]!.response).toBe(true);
        const rest = events.slice(1);
        expect(rest.map((e) => e.sequence)).toEqual(log.filter((e) => e.sequence > events[0]!.sequence).map((e) => e.sequence));
        expect(rest.map((e) => e.response)).toEqual(log.filter((e) => e.sequence > events[0]!.sequence).map((e) => e.event));
        expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
      }
      // The run's updates are in the log once each, in the order emitted.
      const numbers = log.flatMap((e) => ('statusUpdate' in e.event && e.event.statusUpdate.metadata?.i !== undefined ? [e.event.statusUpdate.metadata.i] : []));
      expect(numbers).toEqual(Array.from({ length: K }, (_, i) => i + 1));
    }
  });
});
