import { describe, expect, it } from 'vitest';
import { commitOf, runTaskStoreConformance, testEvent, testTask } from '../testing.js';
import { DEFAULT_MAX_EVENTS_PER_TASK, MemoryTaskStore } from './memory-store.js';
import { runStoreBoundsSuite } from './store-bounds-suite.js';

runTaskStoreConformance('MemoryTaskStore', async () => ({ store: new MemoryTaskStore() }), {
  retention: async (maxEventsPerTask) => ({ store: new MemoryTaskStore({ maxEventsPerTask }) }),
  keepsTrace: true,
});
runStoreBoundsSuite('MemoryTaskStore', async (options) => new MemoryTaskStore(options));

describe('MemoryTaskStore values', () => {
  it('freezes what it is given, in place, and hands out those frozen objects without copying', async () => {
    const store = new MemoryTaskStore();
    const task = testTask('t1', { history: 1 });
    await store.commit(commitOf(task, 0, [testEvent(task, 1)]));
    expect(Object.isFrozen(task) && Object.isFrozen(task.status) && Object.isFrozen(task.history![0]!.parts)).toBe(true);
    const read = await store.get('t1');
    expect(read?.task).toBe(task);
    const [event] = await store.readEvents('t1', 0);
    expect(Object.isFrozen(event!.event)).toBe(true);
    expect(Object.isFrozen((await store.list({ owner: 'alice' })).tasks[0])).toBe(true);
  });

  it('freezes every level of events that share parts with the task (a held-back task stored with its first update)', async () => {
    const store = new MemoryTaskStore();
    const held = testTask('t1', { history: 1 });
    const status = { state: 'TASK_STATE_WORKING' as const, message: { messageId: 'a1', role: 'ROLE_AGENT' as const, parts: [{ text: 'on it' }] } };
    const task = { ...held, status, history: [...held.history!] };
    const update = { statusUpdate: { taskId: 't1', contextId: held.contextId, status, metadata: { progress: { current: 1 } } } };
    await store.commit({ task, expectedVersion: 0, owner: 'alice', events: [{ task: held }, update] });
    const frozen = [held, held.status, held.history![0]!.parts[0], task, task.history, status.message.parts[0], update, update.statusUpdate, update.statusUpdate.metadata.progress];
    expect(frozen.every((value) => Object.isFrozen(value))).toBe(true);
    expect((await store.readEvents('t1', 0)).map((e) => e.event)).toEqual([{ task: held }, update]);
  });

  it('copies a value that is not JSON-like on the way in and out, so it cannot be changed through either', async () => {
    const store = new MemoryTaskStore();
    const when = new Date(0);
    const task = { ...testTask('t1'), metadata: { when } };
    await store.commit(commitOf(task, 0));
    when.setTime(1);
    const read = (await store.get('t1'))!.task.metadata as { when: Date };
    expect(read.when).not.toBe(when);
    expect(read.when.getTime()).toBe(0);
    read.when.setTime(2);
    expect(((await store.get('t1'))!.task.metadata as { when: Date }).when.getTime()).toBe(0);
  });
});

describe('MemoryTaskStore events and scale', () => {
  it(`keeps ${DEFAULT_MAX_EVENTS_PER_TASK} events per task by default`, async () => {
    const store = new MemoryTaskStore();
    const task = testTask('t1');
    const events = Array.from({ length: DEFAULT_MAX_EVENTS_PER_TASK + 5 }, (_, i) => testEvent(task, i + 1));
    await store.commit(commitOf(task, 0, events));
    const kept = await store.readEvents('t1', 0);
    expect(kept).toHaveLength(DEFAULT_MAX_EVENTS_PER_TASK);
    expect(kept[0]!.sequence).toBe(6);
    expect((await store.get('t1'))?.lastSequence).toBe(DEFAULT_MAX_EVENTS_PER_TASK + 5);
  });

  it('rejects a retention bound that is not positive', () => {
    expect(() => new MemoryTaskStore({ maxEventsPerTask: 0 })).toThrow(/maxEventsPerTask must be a positive number/);
  });

  it('rejects a bound that is not positive', () => {
    expect(() => new MemoryTaskStore({ maxTasks: 0 })).toThrow(/maxTasks must be a positive number/);
  });

  it('answers pages and totals over a large store', async () => {
    const store = new MemoryTaskStore({ maxTasks: Infinity });
    for (let i = 0; i < 20_000; i++) await store.commit(commitOf(testTask(`t${i}`, { at: i % 1000, contextId: `c${i % 10}` })));
    const page = await store.list({ owner: 'alice', contextId: 'c3', pageSize: 10 });
    expect(page.totalSize).toBe(2_000);
    expect(page.tasks.map((t) => t.status.timestamp)).toEqual(page.tasks.map((t) => t.status.timestamp).sort().reverse());
  });
});
