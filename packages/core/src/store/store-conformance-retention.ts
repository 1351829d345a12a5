import { describe, expect, it } from 'vitest';
import {
  commitOf,
  testEvent,
  testTask,
  withConformanceStore,
  type ConformanceContext,
  type TaskStoreHarness,
} from './store-conformance-fixtures.js';
import type { TaskStore } from './task-store.js';

/** The retention bound the suite opens its stores with. */
export const RETENTION_UNDER_TEST = 4;

/**
 * Registers the rules of a per-task event retention bound with vitest, for
 * stores opened by `open(maxEventsPerTask)` (called with
 * {@link RETENTION_UNDER_TEST}): a task keeps its newest `maxEventsPerTask`
 * events, contiguous and ending at its `lastSequence`; sequence numbers go
 * on counting; a read from before the oldest kept event starts at it (the
 * reader sees the gap in the sequence numbers); with `durable` (the harness
 * returns `reopen`), a reopened store keeps the same events.
 */
export function registerRetentionConformance(open: (maxEventsPerTask: number) => Promise<TaskStoreHarness>, durable: boolean): void {
  const run = (fn: (ctx: ConformanceContext) => Promise<void>) => () => withConformanceStore(() => open(RETENTION_UNDER_TEST), fn);
  const sequences = async (store: TaskStore, after = 0) => (await store.readEvents('t1', after)).map((e) => e.sequence);

  describe('event retention', () => {
    it('keeps the newest events across commits; sequences keep counting', run(async ({ store }) => {
      const task = testTask('t1');
      await store.commit(commitOf(task, 0, [1, 2, 3].map((n) => testEvent(task, n))));
      expect(await store.commit(commitOf(task, 1, [4, 5, 6].map((n) => testEvent(task, n))))).toEqual({
        version: 2, firstSequence: 4, lastSequence: 6,
      });
      expect(await sequences(store)).toEqual([3, 4, 5, 6]);
      expect((await store.readEvents('t1', 4)).map((e) => e.event)).toEqual([testEvent(task, 5), testEvent(task, 6)]);
      expect((await store.get('t1'))?.lastSequence).toBe(6);
    }));
    it('keeps only the newest events of one commit bigger than the bound', run(async ({ store }) => {
      const task = testTask('t1');
      await store.commit(commitOf(task, 0, [1, 2, 3, 4, 5, 6, 7].map((n) => testEvent(task, n))));
      expect(await store.readEvents('t1', 0)).toEqual([4, 5, 6, 7].map((n) => ({ sequence: n, event: testEvent(task, n) })));
    }));
    it('starts a read from before the oldest kept event at that event, and honours limit', run(async ({ store }) => {
      const task = testTask('t1');
      for (let v = 0; v < 10; v++) await store.commit(commitOf(task, v, [testEvent(task, v + 1)]));
      expect(await sequences(store, 2)).toEqual([7, 8, 9, 10]);
      expect((await store.readEvents('t1', 1, 2)).map((e) => e.sequence)).toEqual([7, 8]);
      expect(await sequences(store, 8)).toEqual([9, 10]);
      expect(await sequences(store, 10)).toEqual([]);
    }));
    it('bounds each task on its own', run(async ({ store }) => {
      const a = testTask('t1');
      const b = testTask('t2');
      await store.commit(commitOf(a, 0, [1, 2, 3, 4, 5, 6].map((n) => testEvent(a, n))));
      await store.commit(commitOf(b, 0, [1, 2].map((n) => testEvent(b, n))));
      expect(await sequences(store)).toEqual([3, 4, 5, 6]);
      expect((await store.readEvents('t2', 0)).map((e) => e.sequence)).toEqual([1, 2]);
    }));
    if (!durable) return;
    it('keeps the same events after a reopen', run(async (ctx) => {
      const task = testTask('t1');
      await ctx.store.commit(commitOf(task, 0, [1, 2, 3, 4, 5].map((n) => testEvent(task, n))));
      await ctx.store.commit(commitOf(task, 1, [6].map((n) => testEvent(task, n))));
      const before = await ctx.store.readEvents('t1', 0);
      const reopened = await ctx.reopen();
      expect(await reopened.readEvents('t1', 0)).toEqual(before);
      expect(await reopened.commit(commitOf(task, 2, [testEvent(task, 7)]))).toMatchObject({ firstSequence: 7, lastSequence: 7 });
      expect(await sequences(reopened)).toEqual([4, 5, 6, 7]);
    }));
  });
}
