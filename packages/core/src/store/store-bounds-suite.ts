import { afterEach, describe, expect, it } from 'vitest';
import { commitOf, testTask } from './store-conformance-fixtures.js';
import type { TaskBoundsOptions } from './task-bounds.js';
import type { TaskStore } from './task-store.js';

/** How many tasks `store` holds for the fixtures' owner. */
async function count(store: TaskStore): Promise<number> {
  return (await store.list({ owner: 'alice' })).totalSize;
}

/**
 * Registers the rules of a bounded store's eviction (`maxTasks`,
 * `terminalTtlMs`) with vitest, for a store opened by `open` with the given
 * bounds. Each store's own tests call it (the memory and file stores).
 */
export function runStoreBoundsSuite(name: string, open: (options: TaskBoundsOptions) => Promise<TaskStore>): void {
  describe(`${name} bounds`, () => {
    const opened: TaskStore[] = [];
    const bounded = async (options: TaskBoundsOptions) => {
      const store = await open(options);
      opened.push(store);
      return store;
    };
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
    });

    it('evicts terminal tasks past maxTasks, least recently updated first', async () => {
      const store = await bounded({ maxTasks: 3 });
      await store.commit(commitOf(testTask('done-1', { state: 'TASK_STATE_COMPLETED' })));
      await store.commit(commitOf(testTask('done-2', { state: 'TASK_STATE_FAILED' })));
      await store.commit(commitOf(testTask('live-1')));
      // done-1 is touched again, so done-2 is now the least recently updated.
      await store.commit(commitOf(testTask('done-1', { state: 'TASK_STATE_COMPLETED', at: 9 }), 1));
      await store.commit(commitOf(testTask('live-2')));
      expect(await store.get('done-2')).toBeUndefined();
      expect(await store.get('done-1')).toBeDefined();
      expect(await count(store)).toBe(3);
      await store.commit(commitOf(testTask('live-3')));
      expect(await store.get('done-1')).toBeUndefined();
      expect(await store.readEvents('done-1', 0)).toEqual([]);
      expect(await count(store)).toBe(3);
    });

    it('never evicts non-terminal tasks: past the bound it keeps them and only the newest terminal task', async () => {
      const store = await bounded({ maxTasks: 2 });
      for (const id of ['a', 'b', 'c']) await store.commit(commitOf(testTask(id)));
      expect(await count(store)).toBe(3);
      await store.commit(commitOf(testTask('done-1', { state: 'TASK_STATE_CANCELED' })));
      expect(await store.get('done-1')).toBeDefined();
      await store.commit(commitOf(testTask('done-2', { state: 'TASK_STATE_REJECTED' })));
      expect(await store.get('done-1')).toBeUndefined();
      expect(await store.get('done-2')).toBeDefined();
      expect(await count(store)).toBe(4);
      // When a live task ends, the store shrinks back towards the bound.
      await store.commit(commitOf(testTask('a', { state: 'TASK_STATE_COMPLETED' }), 1));
      expect(await count(store)).toBe(3);
    });

    it('tells onRemoved listeners of each task it evicts', async () => {
      const store = await bounded({ maxTasks: 1 });
      const removed: string[] = [];
      store.onRemoved?.((taskId) => removed.push(taskId));
      await store.commit(commitOf(testTask('done-1', { state: 'TASK_STATE_COMPLETED' })));
      await store.commit(commitOf(testTask('done-2', { state: 'TASK_STATE_COMPLETED' })));
      expect(removed).toEqual(['done-1']);
    });

    it('evicts terminal tasks older than terminalTtlMs, keeping live ones', async () => {
      let now = 1_000;
      const store = await bounded({ terminalTtlMs: 100, now: () => now });
      await store.commit(commitOf(testTask('done', { state: 'TASK_STATE_COMPLETED' })));
      await store.commit(commitOf(testTask('live')));
      now += 50;
      await store.commit(commitOf(testTask('done-later', { state: 'TASK_STATE_COMPLETED' })));
      now += 50;
      expect(await store.get('done')).toBeUndefined();
      expect(await store.get('done-later')).toBeDefined();
      expect((await store.list({ owner: 'alice' })).tasks.map((t) => t.id).sort()).toEqual(['done-later', 'live']);
      now += 1_000_000;
      expect(await store.get('live')).toBeDefined();
      expect(await count(store)).toBe(1);
    });
  });
}
