import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import { commitOf, testTask } from '../testing.js';
import { FileTaskStore } from './file-store.js';
import { runStoreBoundsSuite } from './store-bounds-suite.js';

const tempDir = useTempDirs('taskwire-file-bounds-');

runStoreBoundsSuite('FileTaskStore', async (options) => FileTaskStore.open(await tempDir(), { ...options, fsync: false }));

const ids = async (store: FileTaskStore) => (await store.list({ owner: 'alice' })).tasks.map((t) => t.id).sort();

describe('FileTaskStore bounds across reopens', () => {
  it('has no bound by default', async () => {
    const store = await FileTaskStore.open(await tempDir(), { fsync: false });
    for (let i = 0; i < 50; i++) await store.commit(commitOf(testTask(`done-${i}`, { state: 'TASK_STATE_COMPLETED' })));
    expect(store.stats().tasks).toBe(50);
    await store.close();
  });

  it('logs what it evicts: a reopened store does not bring evicted tasks back', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir, { maxTasks: 2 });
    for (const [i, id] of ['d1', 'd2', 'd3', 'd4'].entries()) await store.commit(commitOf(testTask(id, { state: 'TASK_STATE_COMPLETED', at: i })));
    expect(await ids(store)).toEqual(['d3', 'd4']);
    await store.close();
    const reopened = await FileTaskStore.open(dir);
    expect(await ids(reopened)).toEqual(['d3', 'd4']);
    expect(await reopened.get('d1')).toBeUndefined();
    await reopened.close();
  });

  it('goes on where it stopped after a reopen: the terminal tasks that ended first (by status timestamp) go first', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir);
    // Committed out of order: their status timestamps say which ended first.
    for (const [id, at] of [['late', 30], ['early', 10], ['middle', 20]] as const) {
      await store.commit(commitOf(testTask(id, { state: 'TASK_STATE_COMPLETED', at })));
    }
    await store.commit(commitOf(testTask('live')));
    await store.close();
    const bounded = await FileTaskStore.open(dir, { maxTasks: 3 });
    expect(await ids(bounded)).toEqual(['late', 'live', 'middle']);
    await bounded.close();
    const expiring = await FileTaskStore.open(dir, { terminalTtlMs: 1_000, now: () => Date.parse('2025-01-01T00:00:25Z') + 1_000 });
    expect(await ids(expiring)).toEqual(['late', 'live']);
    await expiring.close();
  });

  it('refuses a bound that is not positive before touching the directory', async () => {
    const dir = join(await tempDir(), 'never-made');
    await expect(FileTaskStore.open(dir, { maxTasks: 0 })).rejects.toThrow(/FileTaskStore: maxTasks must be a positive number/);
    await expect(FileTaskStore.open(dir, { terminalTtlMs: -1 })).rejects.toThrow(/terminalTtlMs must be a positive number/);
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
