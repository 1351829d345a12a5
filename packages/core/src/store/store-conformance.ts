import { describe, expect, it } from 'vitest';
import {
  commitOf,
  testEvent,
  testTask,
  testTimestamp,
  withConformanceStore,
  type ConformanceRunner,
  type TaskStoreHarness,
} from './store-conformance-fixtures.js';
import { registerAppendConformance } from './store-conformance-append.js';
import { registerListConformance } from './store-conformance-list.js';
import { registerRetentionConformance } from './store-conformance-retention.js';
import { registerTraceConformance } from './store-conformance-trace.js';
import { OwnerMismatchError, StoreClosedError, VersionConflictError } from './task-store.js';

export * from './store-conformance-fixtures.js';
export { RETENTION_UNDER_TEST } from './store-conformance-retention.js';
export { reducedTask, streamAppends, testChunk, testProgress } from './store-conformance-append.js';

/** Options of {@link runTaskStoreConformance}. */
export interface TaskStoreConformanceOptions {
  /** The store keeps what it acknowledged across a reopen (the harness returns `reopen`): checked too. */
  readonly durable?: boolean;
  /**
   * Opens an empty store that keeps at most `maxEventsPerTask` events per
   * task (its event retention bound). With it, the suite also checks the
   * retention rules: the newest events kept, sequences counting on, reads
   * from before the oldest kept event starting at it.
   */
  readonly retention?: (maxEventsPerTask: number) => Promise<TaskStoreHarness>;
  /**
   * The store keeps `CommitRequest.trace` with each task (the creating
   * request's trace context, so traces link across processes): checked too.
   */
  readonly keepsTrace?: boolean;
  /** The store implements `TaskStore.head`: checked against `get` too. */
  readonly readsHead?: boolean;
}

/**
 * Registers the TaskStore conformance suite with vitest: every rule of the
 * {@link TaskStore} contract (create/get, optimistic versions and racing
 * commits, owners, event sequences and `readEvents`, atomicity, ListTasks
 * filters/order/pagination/projection, delete, close, copy isolation) and,
 * with `{ durable: true }` (the harness must then return `reopen`),
 * durability of every acknowledged commit across a reopen; with
 * `retention`, the per-task event retention bound. `open` is called once per
 * test and must return an empty store.
 */
export function runTaskStoreConformance(
  name: string,
  open: () => Promise<TaskStoreHarness>,
  options: TaskStoreConformanceOptions = {},
): void {
  const run: ConformanceRunner = (fn) => () => withConformanceStore(open, fn);

  describe(`TaskStore conformance: ${name}`, () => {
    describe('create and get', () => {
      it('creates a task at version 1 with an empty log', run(async ({ store }) => {
        const task = testTask('t1', { history: 2, artifacts: 1 });
        expect(await store.commit(commitOf(task))).toEqual({ version: 1, firstSequence: 1, lastSequence: 0 });
        expect(await store.get('t1')).toEqual({ task, version: 1, owner: 'alice', lastSequence: 0 });
      }));
      it('returns undefined for an unknown task', run(async ({ store }) => {
        expect(await store.get('nope')).toBeUndefined();
      }));
      it('keeps the anonymous owner', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1'), 0, [], ''));
        expect((await store.get('t1'))?.owner).toBe('');
      }));
    });

    describe('versions', () => {
      it('updates when the expected version matches and bumps it', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        const next = testTask('t1', { state: 'TASK_STATE_COMPLETED', at: 5 });
        expect((await store.commit(commitOf(next, 1))).version).toBe(2);
        expect(await store.get('t1')).toMatchObject({ task: next, version: 2 });
      }));
      it('rejects creating a task that exists', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        const error = await store.commit(commitOf(testTask('t1', { at: 9 }))).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(VersionConflictError);
        expect(error).toMatchObject({ taskId: 't1', expectedVersion: 0, actualVersion: 1 });
        expect((await store.get('t1'))?.task.status.timestamp).toBe(testTimestamp(0));
      }));
      it('rejects a stale version and leaves the task as it was', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        await store.commit(commitOf(testTask('t1', { at: 1 }), 1));
        await expect(store.commit(commitOf(testTask('t1', { at: 2 }), 1))).rejects.toMatchObject({
          name: 'VersionConflictError', expectedVersion: 1, actualVersion: 2,
        });
        expect(await store.get('t1')).toMatchObject({ version: 2, task: testTask('t1', { at: 1 }) });
      }));
      it('rejects updating a task that does not exist', run(async ({ store }) => {
        await expect(store.commit(commitOf(testTask('ghost'), 3))).rejects.toMatchObject({
          name: 'VersionConflictError', expectedVersion: 3, actualVersion: 0,
        });
        expect(await store.get('ghost')).toBeUndefined();
      }));
      it('lets exactly one of many concurrent commits on one version win', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        const attempts = Array.from({ length: 16 }, (_, i) => commitOf(testTask('t1', { at: 100 + i }), 1, [testEvent(testTask('t1'), i)]));
        const results = await Promise.allSettled(attempts.map((a) => store.commit(a)));
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
        const record = await store.get('t1');
        expect(record).toMatchObject({ version: 2, lastSequence: 1, task: attempts[won[0]!]!.task });
        expect((await store.readEvents('t1', 0)).map((e) => e.event)).toEqual(attempts[won[0]!]!.events);
      }));
      it('lets exactly one of many concurrent creates win', run(async ({ store }) => {
        const results = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.commit(commitOf(testTask('t1', { at: i })))));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect((await store.get('t1'))?.version).toBe(1);
      }));
    });

    describe('owners', () => {
      it('rejects a commit naming another owner and keeps the task', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        const error = await store.commit(commitOf(testTask('t1', { at: 3 }), 1, [], 'mallory')).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OwnerMismatchError);
        expect(error).toMatchObject({ taskId: 't1' });
        expect(await store.get('t1')).toMatchObject({ owner: 'alice', version: 1, lastSequence: 0 });
      }));
    });

    describe('events', () => {
      it('numbers events from 1, contiguously across commits', run(async ({ store }) => {
        const task = testTask('t1');
        expect(await store.commit(commitOf(task, 0, [testEvent(task, 1), testEvent(task, 2), testEvent(task, 3)]))).toEqual({
          version: 1, firstSequence: 1, lastSequence: 3,
        });
        expect(await store.commit(commitOf(task, 1, [testEvent(task, 4), testEvent(task, 5)]))).toEqual({ version: 2, firstSequence: 4, lastSequence: 5 });
        expect(await store.commit(commitOf(task, 2))).toEqual({ version: 3, firstSequence: 6, lastSequence: 5 });
        expect((await store.get('t1'))?.lastSequence).toBe(5);
        const all = await store.readEvents('t1', 0);
        expect(all).toEqual([1, 2, 3, 4, 5].map((n) => ({ sequence: n, event: testEvent(task, n) })));
      }));
      it('reads from any position, at most limit events', run(async ({ store }) => {
        const task = testTask('t1');
        await store.commit(commitOf(task, 0, [1, 2, 3, 4].map((n) => testEvent(task, n))));
        await store.commit(commitOf(task, 1, [5, 6, 7].map((n) => testEvent(task, n))));
        for (let after = 0; after <= 8; after++) {
          const expected = [1, 2, 3, 4, 5, 6, 7].filter((n) => n > after);
          expect((await store.readEvents('t1', after)).map((e) => e.sequence)).toEqual(expected);
          for (const limit of [1, 2, 5]) {
            expect((await store.readEvents('t1', after, limit)).map((e) => e.sequence)).toEqual(expected.slice(0, limit));
          }
        }
      }));
      it('reads nothing for an unknown task', run(async ({ store }) => {
        expect(await store.readEvents('nope', 0)).toEqual([]);
      }));
      it('keeps logs per task', run(async ({ store }) => {
        const a = testTask('a');
        const b = testTask('b');
        await store.commit(commitOf(a, 0, [testEvent(a, 1)]));
        await store.commit(commitOf(b, 0, [testEvent(b, 1), testEvent(b, 2)]));
        expect((await store.readEvents('a', 0)).map((e) => e.event)).toEqual([testEvent(a, 1)]);
        expect((await store.readEvents('b', 1)).map((e) => e.sequence)).toEqual([2]);
      }));
    });

    describe('atomicity', () => {
      it('stores neither task nor events of a rejected commit', run(async ({ store }) => {
        const task = testTask('t1');
        await store.commit(commitOf(task, 0, [testEvent(task, 1)]));
        await expect(store.commit(commitOf(testTask('t1', { at: 7 }), 5, [testEvent(task, 2)]))).rejects.toBeInstanceOf(VersionConflictError);
        await expect(store.commit(commitOf(testTask('t1', { at: 7 }), 1, [testEvent(task, 2)], 'bob'))).rejects.toBeInstanceOf(OwnerMismatchError);
        expect(await store.get('t1')).toEqual({ task, version: 1, owner: 'alice', lastSequence: 1 });
        expect(await store.readEvents('t1', 0)).toHaveLength(1);
        expect(await store.commit(commitOf(task, 1, [testEvent(task, 2)]))).toEqual({ version: 2, firstSequence: 2, lastSequence: 2 });
      }));
    });

    registerListConformance(run);

    describe('delete', () => {
      it('removes the task, its events and its list entry', run(async ({ store }) => {
        const task = testTask('t1');
        await store.commit(commitOf(task, 0, [testEvent(task, 1)]));
        await store.commit(commitOf(testTask('t2')));
        expect(await store.delete('t1')).toBe(true);
        expect(await store.get('t1')).toBeUndefined();
        expect(await store.readEvents('t1', 0)).toEqual([]);
        expect((await store.list({ owner: 'alice' })).tasks.map((t) => t.id)).toEqual(['t2']);
        expect(await store.delete('t1')).toBe(false);
      }));
      it('lets a deleted id be created again from version 1 and sequence 1', run(async ({ store }) => {
        const task = testTask('t1');
        await store.commit(commitOf(task, 0, [testEvent(task, 1), testEvent(task, 2)]));
        await store.delete('t1');
        expect(await store.commit(commitOf(task, 0, [testEvent(task, 9)]))).toEqual({ version: 1, firstSequence: 1, lastSequence: 1 });
        expect(await store.readEvents('t1', 0)).toEqual([{ sequence: 1, event: testEvent(task, 9) }]);
      }));
      it('tells onRemoved listeners (when the store has them) of each task it deletes, once, until they stop listening', run(async ({ store }) => {
        if (!store.onRemoved) return;
        const removed: string[] = [];
        const stop = store.onRemoved((taskId) => removed.push(taskId));
        await store.commit(commitOf(testTask('t1')));
        await store.commit(commitOf(testTask('t2')));
        await store.delete('t1');
        await store.delete('t1');
        await store.delete('ghost');
        stop();
        await store.delete('t2');
        expect(removed).toEqual(['t1']);
      }));
    });

    describe('isolation', () => {
      // A store may copy values or freeze them (then a mutation throws a TypeError): either way it must not change.
      it('is not changed through objects passed to commit or returned by reads', run(async ({ store }) => {
        const task = testTask('t1', { history: 2, artifacts: 1 });
        const pristine = structuredClone(task);
        const events = [testEvent(task, 1)];
        await store.commit(commitOf(task, 0, events));
        tryMutate(() => (task.status.state = 'TASK_STATE_FAILED'));
        tryMutate(() => task.history!.push(task.history![0]!));
        tryMutate(() => ((events[0] as { statusUpdate: { metadata: object } }).statusUpdate.metadata = { n: 'changed' }));
        const read = await store.get('t1');
        tryMutate(() => (read!.task.history!.length = 0));
        tryMutate(() => (read!.task.contextId = 'changed'));
        const [event] = await store.readEvents('t1', 0);
        tryMutate(() => ((event!.event as { statusUpdate: { metadata: object } }).statusUpdate.metadata = { n: 'changed' }));
        tryMutate(() => ((event as { sequence: number }).sequence = 99));
        const listed = await store.list({ owner: 'alice', includeArtifacts: true });
        tryMutate(() => (listed.tasks[0]!.artifacts!.length = 0));
        tryMutate(() => (listed.tasks[0]!.status.state = 'TASK_STATE_REJECTED'));
        tryMutate(() => (listed.tasks[0]!.artifacts![0]!.parts[0] = { text: 'changed' }));
        expect((await store.get('t1'))?.task).toEqual(pristine);
        expect((await store.readEvents('t1', 0))[0]).toEqual({ sequence: 1, event: testEvent(pristine, 1) });
        expect((await store.list({ owner: 'alice', includeArtifacts: true })).tasks).toEqual([pristine]);
      }));
    });

    describe('close', () => {
      it('rejects every call after close with StoreClosedError', run(async ({ store }) => {
        await store.commit(commitOf(testTask('t1')));
        await store.close();
        await expect(store.get('t1')).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.commit(commitOf(testTask('t2')))).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.list({ owner: 'alice' })).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.delete('t1')).rejects.toBeInstanceOf(StoreClosedError);
        await expect(store.readEvents('t1', 0)).rejects.toBeInstanceOf(StoreClosedError);
      }));
    });

    registerAppendConformance(run, options.durable === true, options.readsHead === true);
    if (options.keepsTrace) registerTraceConformance(run, options.durable === true);
    if (options.durable) registerDurabilityConformance(run);
    if (options.retention) registerRetentionConformance(options.retention, options.durable === true);
  });
}

/** Runs a mutation of a value a store handed out or was given; a TypeError (the value is frozen) is as good as no effect. */
function tryMutate(mutate: () => unknown): void {
  try {
    mutate();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}

function registerDurabilityConformance(run: ConformanceRunner): void {
  describe('durability across reopen', () => {
    it('keeps every acknowledged commit, delete and event, and continues versions', run(async (ctx) => {
      const tasks = Array.from({ length: 40 }, (_, i) => testTask(`t${i}`, { at: i, contextId: `c${i % 3}`, history: i % 4, artifacts: i % 2 }));
      await Promise.all(tasks.map((t, i) => ctx.store.commit(commitOf(t, 0, [testEvent(t, 1)], i % 5 === 0 ? 'bob' : 'alice'))));
      await Promise.all(tasks.slice(0, 20).map((t, i) => ctx.store.commit(commitOf({ ...t, status: { state: 'TASK_STATE_COMPLETED', timestamp: testTimestamp(100 + i) } }, 1, [testEvent(t, 2), testEvent(t, 3)], i % 5 === 0 ? 'bob' : 'alice'))));
      await ctx.store.delete('t7');
      const before = await Promise.all(tasks.map(async (t) => [await ctx.store.get(t.id), await ctx.store.readEvents(t.id, 0)]));
      const listBefore = await ctx.store.list({ owner: 'alice', pageSize: 100, includeArtifacts: true });
      const store = await ctx.reopen();
      expect(await Promise.all(tasks.map(async (t) => [await store.get(t.id), await store.readEvents(t.id, 0)]))).toEqual(before);
      expect(await store.list({ owner: 'alice', pageSize: 100, includeArtifacts: true })).toEqual(listBefore);
      // A task still working goes on from where it was (one that finished never changes again: a store may refuse that).
      expect(await store.commit(commitOf(tasks[20]!, 1, [testEvent(tasks[20]!, 2)], 'bob'))).toEqual({ version: 2, firstSequence: 2, lastSequence: 2 });
      expect(await store.commit(commitOf(tasks[7]!, 0))).toMatchObject({ version: 1 });
      const again = await ctx.reopen();
      expect(await again.get('t20')).toMatchObject({ version: 2, lastSequence: 2 });
      expect((await again.readEvents('t20', 1)).map((e) => e.sequence)).toEqual([2]);
      expect(await again.get('t7')).toMatchObject({ version: 1, lastSequence: 0 });
    }));
  });
}
