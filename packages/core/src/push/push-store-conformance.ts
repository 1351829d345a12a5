import { describe, expect, it } from 'vitest';
import type { StoreContext, StoreHarness } from '../store/store-conformance-fixtures.js';
import { withConformanceStore } from '../store/store-conformance-fixtures.js';
import { pushConfigKeys } from './push-config-keys.js';
import type { PushConfigStore, PushDeadLetter, StoredPushConfig } from './push-config-store.js';

/** What a push store conformance run opens for each test: a fresh, empty store. */
export type PushConfigStoreHarness = StoreHarness<PushConfigStore>;

/** A stored config for tests: task `taskId`, config `id`, owner `alice` unless given. */
export function testPushConfig(taskId: string, id: string, delivered = 0, extra: Partial<StoredPushConfig['config']> = {}, owner = 'alice'): StoredPushConfig {
  return { owner, delivered, config: { taskId, id, url: `https://hooks.example.com/${taskId}/${id}`, ...extra } };
}

/** A dead letter for tests. */
export function testDeadLetter(taskId: string, configId: string, sequence: number, extra: Partial<PushDeadLetter> = {}): PushDeadLetter {
  return {
    taskId,
    configId,
    url: `https://hooks.example.com/${taskId}/${configId}`,
    sequence,
    event: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
    attempts: 3,
    error: 'the webhook answered HTTP 503',
    at: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

/**
 * Registers the PushConfigStore conformance suite with vitest: every rule
 * of the {@link PushConfigStore} contract (put/get/replace, cursors that
 * never move back, ordering, deletes, dead letters and their removal,
 * copies, close) and, for
 * a `durable` adapter (whose harness has `reopen`), that everything
 * acknowledged survives a reopen. `open` is called once per test and must
 * return an empty store.
 */
export function runPushConfigStoreConformance(
  name: string,
  open: () => Promise<PushConfigStoreHarness>,
  options: { readonly durable?: boolean } = {},
): void {
  const run = (fn: (ctx: StoreContext<PushConfigStore>) => Promise<void>) => () => withConformanceStore(open, fn);

  describe(`PushConfigStore conformance: ${name}`, () => {
    it('stores a config and returns it; an unknown one is undefined', run(async ({ store }) => {
      const entry = testPushConfig('t1', 'c1', 0, { token: 'tok', authentication: { scheme: 'Bearer', credentials: 's3cret' } });
      expect(await store.put(entry)).toEqual(entry);
      expect(await store.get('t1', 'c1')).toEqual(entry);
      expect(await store.get('t1', 'nope')).toBeUndefined();
      expect(await store.get('nope', 'c1')).toBeUndefined();
    }));

    it('replaces a config with the same id, keeping the larger cursor', run(async ({ store }) => {
      await store.put(testPushConfig('t1', 'c1', 5));
      const replaced = await store.put(testPushConfig('t1', 'c1', 2, { url: 'https://hooks.example.com/new' }));
      expect(replaced).toMatchObject({ delivered: 5, config: { url: 'https://hooks.example.com/new' } });
      expect(await store.get('t1', 'c1')).toEqual(replaced);
      expect((await store.put(testPushConfig('t1', 'c1', 9))).delivered).toBe(9);
    }));

    it('lists the configs of one task ordered by id, and all of them', run(async ({ store }) => {
      for (const id of ['b', 'c', 'a']) await store.put(testPushConfig('t1', id));
      await store.put(testPushConfig('t2', 'z'));
      expect((await store.list('t1')).map((e) => e.config.id)).toEqual(['a', 'b', 'c']);
      expect(await store.list('t3')).toEqual([]);
      expect((await store.all()).map((e) => `${e.config.taskId}/${e.config.id}`).sort()).toEqual(['t1/a', 't1/b', 't1/c', 't2/z']);
    }));

    it('gives the keys of the configs it stores, of one task ordered by id, and of all (keys() when it has one)', run(async ({ store }) => {
      for (const id of ['b', 'a']) await store.put(testPushConfig('t1', id));
      await store.put(testPushConfig('t2', 'z', 0, { authentication: { scheme: 'Bearer', credentials: 's3cret' } }));
      expect(await pushConfigKeys(store, 't1')).toEqual([{ taskId: 't1', configId: 'a' }, { taskId: 't1', configId: 'b' }]);
      expect(await pushConfigKeys(store, 't3')).toEqual([]);
      expect((await pushConfigKeys(store)).map((k) => `${k.taskId}/${k.configId}`).sort()).toEqual(['t1/a', 't1/b', 't2/z']);
    }));

    it('deletes one config (true once, then false) and all configs of a task', run(async ({ store }) => {
      for (const id of ['a', 'b']) await store.put(testPushConfig('t1', id));
      await store.put(testPushConfig('t2', 'a'));
      expect(await store.delete('t1', 'a')).toBe(true);
      expect(await store.delete('t1', 'a')).toBe(false);
      expect((await store.list('t1')).map((e) => e.config.id)).toEqual(['b']);
      expect(await store.deleteTask('t1')).toBe(1);
      expect(await store.deleteTask('t1')).toBe(0);
      expect(await store.list('t1')).toEqual([]);
      expect(await store.get('t2', 'a')).toBeDefined();
    }));

    it('advances a cursor forward only, and ignores a missing config', run(async ({ store }) => {
      await store.put(testPushConfig('t1', 'c1'));
      await store.advance('t1', 'c1', 3);
      await store.advance('t1', 'c1', 2);
      expect((await store.get('t1', 'c1'))?.delivered).toBe(3);
      await store.advance('t1', 'gone', 7);
      expect(await store.get('t1', 'gone')).toBeUndefined();
    }));

    it('keeps the highest cursor when advances race', run(async ({ store }) => {
      await store.put(testPushConfig('t1', 'c1'));
      await Promise.all(Array.from({ length: 40 }, (_, i) => store.advance('t1', 'c1', (i * 7) % 40 + 1)));
      expect((await store.get('t1', 'c1'))?.delivered).toBe(40);
    }));

    it('records dead letters, oldest first, and moves the cursor past them', run(async ({ store }) => {
      await store.put(testPushConfig('t1', 'c1'));
      await store.put(testPushConfig('t2', 'c1'));
      await store.deadLetter(testDeadLetter('t1', 'c1', 2));
      await store.deadLetter(testDeadLetter('t2', 'c1', 1));
      await store.deadLetter(testDeadLetter('t1', 'c1', 3, { throughSequence: 6, event: undefined, attempts: 0 }));
      expect((await store.get('t1', 'c1'))?.delivered).toBe(6);
      expect((await store.listDeadLetters()).map((l) => `${l.taskId}:${l.sequence}`)).toEqual(['t1:2', 't2:1', 't1:3']);
      expect((await store.listDeadLetters({ taskId: 't1' })).map((l) => l.sequence)).toEqual([2, 3]);
      expect((await store.listDeadLetters({ limit: 1 }))[0]).toEqual(testDeadLetter('t1', 'c1', 3, { throughSequence: 6, event: undefined, attempts: 0 }));
    }));

    it('removes the dead letters matching a task, config, sequence and time, resolving how many; cursors stay', run(async ({ store }) => {
      await store.put(testPushConfig('t1', 'c1'));
      const on = (day: number) => ({ at: `2025-01-0${day}T00:00:00.000Z` });
      await store.deadLetter(testDeadLetter('t1', 'c1', 1, on(1)));
      await store.deadLetter(testDeadLetter('t1', 'c2', 2, on(2)));
      await store.deadLetter(testDeadLetter('t2', 'c1', 3, on(3)));
      await store.deadLetter(testDeadLetter('t1', 'c1', 4, on(4)));
      const left = async () => (await store.listDeadLetters()).map((l) => l.sequence);
      expect(await store.removeDeadLetters({ taskId: 't1', configId: 'c1', sequence: 4 })).toBe(1);
      expect(await left()).toEqual([1, 2, 3]);
      expect(await store.removeDeadLetters({ before: '2025-01-02T00:00:00.000Z' })).toBe(1); // strictly before
      expect(await left()).toEqual([2, 3]);
      expect(await store.removeDeadLetters({ configId: 'c1' })).toBe(1);
      expect(await store.removeDeadLetters({ taskId: 'nope' })).toBe(0);
      await expect(store.removeDeadLetters({ before: 'last tuesday' })).rejects.toThrow(RangeError);
      expect(await left()).toEqual([2]);
      expect(await store.removeDeadLetters({})).toBe(1);
      expect(await left()).toEqual([]);
      expect((await store.get('t1', 'c1'))?.delivered).toBe(4);
      await store.deadLetter(testDeadLetter('t1', 'c1', 5));
      expect(await left()).toEqual([5]);
    }));

    it('returns copies: changing values given or received changes nothing stored', run(async ({ store }) => {
      const entry = testPushConfig('t1', 'c1', 0, { authentication: { scheme: 'Bearer', credentials: 'a' } });
      const returned = await store.put(entry);
      (entry.config.authentication as { credentials: string }).credentials = 'changed';
      (returned.config as { url: string }).url = 'https://evil.example.com/';
      const read = await store.get('t1', 'c1');
      expect(read?.config).toMatchObject({ url: 'https://hooks.example.com/t1/c1', authentication: { credentials: 'a' } });
      (read!.config as { url: string }).url = 'https://evil.example.com/';
      (await store.list('t1'))[0]!.config.authentication!.scheme = 'Basic';
      expect(await store.get('t1', 'c1')).toEqual(testPushConfig('t1', 'c1', 0, { authentication: { scheme: 'Bearer', credentials: 'a' } }));
    }));

    it('rejects every call after close; close is idempotent', run(async ({ store }) => {
      await store.close();
      await store.close();
      await expect(store.get('t1', 'c1')).rejects.toThrow(/closed/);
      await expect(store.put(testPushConfig('t1', 'c1'))).rejects.toThrow(/closed/);
      await expect(store.listDeadLetters()).rejects.toThrow(/closed/);
      await expect(store.removeDeadLetters({})).rejects.toThrow(/closed/);
    }));

    if (options.durable) {
      it('keeps everything acknowledged across a reopen', run(async (ctx) => {
        const { store } = ctx;
        await store.put(testPushConfig('t1', 'a', 0, { token: 'tok' }));
        await store.put(testPushConfig('t1', 'b'));
        await store.put(testPushConfig('t2', 'a', 0, {}, 'bob'));
        await store.advance('t1', 'a', 4);
        await store.delete('t1', 'b');
        await store.deadLetter(testDeadLetter('t2', 'a', 2));
        await store.deadLetter(testDeadLetter('t1', 'a', 3));
        expect(await store.removeDeadLetters({ taskId: 't1' })).toBe(1);
        // A removal is replayed where it was: a letter recorded after it stays.
        await store.deadLetter(testDeadLetter('t1', 'b', 5));
        const before = { all: await store.all(), letters: await store.listDeadLetters() };
        expect(before.letters.map((l) => `${l.taskId}:${l.sequence}`)).toEqual(['t2:2', 't1:5']);
        const again = await ctx.reopen();
        expect({ all: await again.all(), letters: await again.listDeadLetters() }).toEqual(before);
        expect((await again.get('t1', 'a'))?.delivered).toBe(4);
        expect((await again.get('t2', 'a'))?.delivered).toBe(2);
      }));
    }
  });
}
