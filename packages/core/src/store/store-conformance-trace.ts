import { describe, expect, it } from 'vitest';
import { commitOf, testEvent, testTask, type ConformanceRunner } from './store-conformance-fixtures.js';

/** A traceparent as a traced request carries it. */
const ORIGIN = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/**
 * Registers the rules of the trace context kept with a task: the
 * `CommitRequest.trace` of the creating commit comes back as
 * `TaskRecord.trace` from every read, later commits do not change it, a task
 * created without one has none, and (`durable`) it survives a reopen, also
 * after a compaction when the store has `compact()`.
 */
export function registerTraceConformance(run: ConformanceRunner, durable: boolean): void {
  describe('trace context', () => {
    it('keeps the creating commit\'s trace for the task\'s life', run(async ({ store }) => {
      const task = testTask('t1');
      await store.commit({ ...commitOf(task), trace: ORIGIN });
      expect((await store.get('t1'))?.trace).toBe(ORIGIN);
      await store.commit(commitOf(task, 1, [testEvent(task, 1)]));
      await store.commit({ ...commitOf(task, 2, [testEvent(task, 2)]), trace: '00-11111111111111111111111111111111-2222222222222222-01' });
      expect(await store.get('t1')).toMatchObject({ version: 3, trace: ORIGIN });
    }));
    it('has no trace for a task created without one', run(async ({ store }) => {
      await store.commit(commitOf(testTask('t1')));
      expect((await store.get('t1'))?.trace).toBeUndefined();
    }));
    if (!durable) return;
    it('keeps the trace across a reopen (and a compaction)', run(async (ctx) => {
      const task = testTask('t1');
      await ctx.store.commit({ ...commitOf(task), trace: ORIGIN });
      await ctx.store.commit(commitOf(task, 1, [testEvent(task, 1)]));
      const compactable = ctx.store as { compact?: () => Promise<void> };
      if (compactable.compact) await compactable.compact();
      const reopened = await ctx.reopen();
      expect(await reopened.get('t1')).toMatchObject({ version: 2, trace: ORIGIN });
    }));
  });
}
