import { describe, expect, it } from 'vitest';
import { A2AError } from '../errors.js';
import type { Task } from '../schema/task.js';
import { commitOf, testEvent, testTask, testTimestamp, type ConformanceRunner } from './store-conformance-fixtures.js';
import type { TaskQuery, TaskStore } from './task-store.js';

async function seed(store: TaskStore, tasks: Task[], owner = 'alice'): Promise<void> {
  for (const task of tasks) await store.commit(commitOf(task, 0, [], owner));
}

async function ids(store: TaskStore, query: Omit<TaskQuery, 'owner'> = {}, owner = 'alice'): Promise<string[]> {
  return (await store.list({ owner, pageSize: 100, ...query })).tasks.map((t) => t.id);
}

/** Reads every page of `query`, calling `between` after each page; returns the ids per page. */
async function pages(store: TaskStore, query: Omit<TaskQuery, 'owner'>, between?: (page: number) => Promise<void>): Promise<string[][]> {
  const out: string[][] = [];
  let pageToken: string | undefined;
  do {
    const page = await store.list({ owner: 'alice', ...query, pageToken });
    out.push(page.tasks.map((t) => t.id));
    pageToken = page.nextPageToken || undefined;
    await between?.(out.length);
  } while (pageToken && out.length < 1000);
  return out;
}

/** The ListTasks part of the conformance suite (A2A v1.0 section 3.1.4). */
export function registerListConformance(run: ConformanceRunner): void {
  describe('list', () => {
    it('answers an empty page when there is nothing', run(async ({ store }) => {
      expect(await store.list({ owner: 'alice' })).toEqual({ tasks: [], generations: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    }));

    it('orders by status timestamp descending, ties by id descending, untimed last', run(async ({ store }) => {
      await seed(store, [
        testTask('b', { at: 5 }), testTask('a', { at: 9 }), testTask('c', { at: 5 }),
        testTask('z', { at: null }), testTask('y', { at: null }), testTask('d', { at: 1 }),
        testTask('e', { at: '2025-01-01T00:00:05.5Z' }), testTask('f', { at: '2025-01-01T00:00:05.000000001Z' }),
      ]);
      expect(await ids(store)).toEqual(['a', 'e', 'f', 'c', 'b', 'd', 'z', 'y']);
    }));

    it('moves a task when its status timestamp changes', run(async ({ store }) => {
      await seed(store, [testTask('a', { at: 1 }), testTask('b', { at: 2 }), testTask('c', { at: 3 })]);
      await store.commit(commitOf(testTask('a', { at: 10, state: 'TASK_STATE_COMPLETED' }), 1));
      expect(await ids(store)).toEqual(['a', 'c', 'b']);
      expect(await ids(store, { status: 'TASK_STATE_COMPLETED' })).toEqual(['a']);
      expect(await ids(store, { status: 'TASK_STATE_WORKING' })).toEqual(['c', 'b']);
    }));

    it('gives each listed task\'s generation: its last sequence, as get reads it (append-only commits too)', run(async ({ store }) => {
      await seed(store, [testTask('a', { at: 1 }), testTask('b', { at: 2 }), testTask('c', { at: 3 })]);
      const b = testTask('b', { at: 4 });
      await store.commit(commitOf(b, 1, [testEvent(b, 1), testEvent(b, 2)]));
      await store.commit({ ...commitOf(b, 2, [testEvent(b, 3)]), appendOnly: true });
      const a = testTask('a', { at: 5 });
      await store.commit(commitOf(a, 1, [testEvent(a, 1)]));
      const page = await store.list({ owner: 'alice', pageSize: 2 });
      const rest = await store.list({ owner: 'alice', pageSize: 2, pageToken: page.nextPageToken });
      const listed = [...page.tasks, ...rest.tasks].map((t) => t.id);
      expect(listed).toEqual(['a', 'b', 'c']);
      const read = await Promise.all(listed.map(async (id) => (await store.get(id))!.lastSequence));
      expect(read).toEqual([1, 3, 0]);
      expect([...(page.generations ?? []), ...(rest.generations ?? [])]).toEqual(read);
    }));

    it('shows only the owner\'s tasks', run(async ({ store }) => {
      await seed(store, [testTask('a1', { at: 1 }), testTask('a2', { at: 2 })]);
      await seed(store, [testTask('b1', { at: 3 })], 'bob');
      expect(await ids(store)).toEqual(['a2', 'a1']);
      expect(await ids(store, {}, 'bob')).toEqual(['b1']);
      expect(await ids(store, {}, 'carol')).toEqual([]);
      expect((await store.list({ owner: 'bob' })).totalSize).toBe(1);
    }));

    it('filters by contextId, status and statusTimestampAfter (at or after), alone and combined', run(async ({ store }) => {
      await seed(store, [
        testTask('t1', { contextId: 'x', at: 1, state: 'TASK_STATE_COMPLETED' }),
        testTask('t2', { contextId: 'x', at: 2 }),
        testTask('t3', { contextId: 'y', at: 3, state: 'TASK_STATE_COMPLETED' }),
        testTask('t4', { contextId: 'y', at: 4 }),
        testTask('t5', { contextId: 'x', at: 5, state: 'TASK_STATE_COMPLETED' }),
        testTask('t6', { contextId: 'x', at: '2025-01-01T00:00:02.001Z' }),
        testTask('t7', { contextId: 'x', at: null }),
      ]);
      expect(await ids(store, { contextId: 'x' })).toEqual(['t5', 't6', 't2', 't1', 't7']);
      expect(await ids(store, { status: 'TASK_STATE_COMPLETED' })).toEqual(['t5', 't3', 't1']);
      expect(await ids(store, { statusTimestampAfter: testTimestamp(2) })).toEqual(['t5', 't4', 't3', 't6', 't2']);
      expect(await ids(store, { statusTimestampAfter: '2025-01-01T00:00:02.001Z' })).toEqual(['t5', 't4', 't3', 't6']);
      expect(await ids(store, { contextId: 'x', status: 'TASK_STATE_COMPLETED' })).toEqual(['t5', 't1']);
      expect(await ids(store, { contextId: 'x', status: 'TASK_STATE_WORKING', statusTimestampAfter: testTimestamp(1) })).toEqual(['t6', 't2']);
      expect(await ids(store, { contextId: 'nope' })).toEqual([]);
      const page = await store.list({ owner: 'alice', contextId: 'x', pageSize: 2 });
      expect(page.totalSize).toBe(5);
      expect((await store.list({ owner: 'alice', statusTimestampAfter: testTimestamp(2), pageSize: 1 })).totalSize).toBe(5);
      expect((await store.list({ owner: 'alice', status: 'TASK_STATE_COMPLETED', pageSize: 1 })).totalSize).toBe(3);
    }));

    it('paginates with opaque tokens: every task once, in order, "" on the last page', run(async ({ store }) => {
      const tasks = Array.from({ length: 23 }, (_, i) => testTask(`t${String(i).padStart(2, '0')}`, { at: i % 4 === 0 ? 7 : i }));
      await seed(store, tasks);
      const all = await ids(store);
      const got = await pages(store, { pageSize: 5 });
      expect(got.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
      expect(got.flat()).toEqual(all);
      const first = await store.list({ owner: 'alice', pageSize: 5 });
      expect(first).toMatchObject({ pageSize: 5, totalSize: 23 });
      expect(first.nextPageToken).not.toBe('');
      const exact = await pages(store, { pageSize: 23 });
      expect(exact).toEqual([all]);
    }));

    it('paginates the same way under filters', run(async ({ store }) => {
      await seed(store, Array.from({ length: 30 }, (_, i) => testTask(`t${i}`, { at: i % 6, contextId: i % 3 ? 'x' : 'y' })));
      const all = await ids(store, { contextId: 'x' });
      expect(all).toHaveLength(20);
      expect((await pages(store, { contextId: 'x', pageSize: 3 })).flat()).toEqual(all);
    }));

    it('neither skips nor repeats a task when tasks are inserted between pages', run(async ({ store }) => {
      const original = Array.from({ length: 20 }, (_, i) => testTask(`t${String(i).padStart(2, '0')}`, { at: 10 + (i % 7) }));
      await seed(store, original);
      const expectedOrder = await ids(store);
      const got = await pages(store, { pageSize: 4 }, async (page) => {
        await store.commit(commitOf(testTask(`new-${page}`, { at: 1000 + page })));
        if (page === 1) await store.commit(commitOf(testTask('old', { at: 1 })));
      });
      const seen = got.flat();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => id.startsWith('t'))).toEqual(expectedOrder);
      expect(seen.filter((id) => id.startsWith('new-'))).toEqual([]);
      expect(seen[seen.length - 1]).toBe('old');
    }));

    it('uses a page size of 50 by default', run(async ({ store }) => {
      await seed(store, Array.from({ length: 55 }, (_, i) => testTask(`t${i}`, { at: i })));
      const first = await store.list({ owner: 'alice' });
      expect(first).toMatchObject({ pageSize: 50, totalSize: 55 });
      expect(first.tasks).toHaveLength(50);
      const second = await store.list({ owner: 'alice', pageToken: first.nextPageToken });
      expect(second.tasks).toHaveLength(5);
      expect(second.nextPageToken).toBe('');
      expect((await store.list({ owner: 'alice', pageSize: 100 })).tasks).toHaveLength(55);
    }));

    it('projects history: unset = all, 0 = omitted, n = the last n', run(async ({ store }) => {
      const task = testTask('t1', { history: 5 });
      await seed(store, [task, testTask('t2', { at: -1 })]);
      const [full] = (await store.list({ owner: 'alice' })).tasks;
      expect(full!.history).toEqual(task.history);
      const [none, noHistory] = (await store.list({ owner: 'alice', historyLength: 0 })).tasks;
      expect(none).not.toHaveProperty('history');
      expect(noHistory).not.toHaveProperty('history');
      const [last2] = (await store.list({ owner: 'alice', historyLength: 2 })).tasks;
      expect(last2!.history!.map((m) => m.messageId)).toEqual(['m3', 'm4']);
      const [more] = (await store.list({ owner: 'alice', historyLength: 50 })).tasks;
      expect(more!.history).toHaveLength(5);
      expect((await store.get('t1'))?.task.history).toHaveLength(5);
    }));

    it('omits artifacts unless includeArtifacts is true', run(async ({ store }) => {
      const task = testTask('t1', { artifacts: 2, history: 1 });
      await seed(store, [task]);
      for (const includeArtifacts of [undefined, false]) {
        const [t] = (await store.list({ owner: 'alice', includeArtifacts })).tasks;
        expect(t).not.toHaveProperty('artifacts');
        expect(t).toEqual({ ...task, artifacts: undefined, history: task.history });
      }
      expect((await store.list({ owner: 'alice', includeArtifacts: true })).tasks).toEqual([task]);
      expect((await store.get('t1'))?.task.artifacts).toHaveLength(2);
    }));

    it('rejects a malformed pageToken with InvalidParams', run(async ({ store }) => {
      await seed(store, [testTask('t1')]);
      const forged = btoa(JSON.stringify(['t1', 42, 'x'])).replace(/=+$/, '');
      for (const pageToken of ['not a token!', 'abc', forged, '%%%']) {
        const error = await store.list({ owner: 'alice', pageToken }).catch((e: unknown) => e);
        expect(A2AError.is(error), `pageToken ${pageToken}`).toBe(true);
        expect(error).toMatchObject({ kind: 'InvalidParams', code: -32602 });
      }
    }));
  });
}
