import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { StoredEvent } from '../store/task-store.js';
import type { TaskCoordinator } from './coordination.js';
import { createInProcessCoordinator } from './coordination.js';
import { RemoteFeed } from './remote-feed.js';

/** A coordinator whose wake-ups the test sends by hand. */
function manualCoordinator() {
  const watchers = new Map<string, Set<(lastSequence: number) => void>>();
  const coordinator: TaskCoordinator = {
    ...createInProcessCoordinator(),
    shared: true,
    watch(taskId, onCommit) {
      let set = watchers.get(taskId);
      if (!set) watchers.set(taskId, (set = new Set()));
      set.add(onCommit);
      return () => set.delete(onCommit);
    },
  };
  const wake = (taskId: string, lastSequence: number) => {
    for (const onCommit of watchers.get(taskId) ?? []) onCommit(lastSequence);
  };
  return { coordinator, wake, watching: (taskId: string) => watchers.get(taskId)?.size ?? 0 };
}

const task: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
const working = (n: number): StreamResponse => ({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } });

/** Commits `count` more events to t1, as another process would. */
async function commitElsewhere(store: ReturnType<typeof createMemoryTaskStore>, count: number): Promise<number> {
  const current = await store.get('t1');
  const result = await store.commit({
    task,
    expectedVersion: current?.version ?? 0,
    owner: '',
    events: current ? Array.from({ length: count }, (_, i) => working(current.lastSequence + i + 1)) : [{ task }],
  });
  return result.lastSequence;
}

function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setImmediate(poll));
    poll();
  });
}

describe('RemoteFeed', () => {
  it('reads what another process committed once per wake-up, in order, skipping what this process has', async () => {
    const store = createMemoryTaskStore();
    const { coordinator, wake } = manualCoordinator();
    const delivered: StoredEvent[] = [];
    const reads: number[] = [];
    const counted = { ...store, readEvents: (id: string, after: number, limit?: number) => (reads.push(after), store.readEvents(id, after, limit)) };
    const feed = new RemoteFeed(coordinator, counted as never, (_id, events) => delivered.push(...events));
    const first = await commitElsewhere(store, 0);
    const stop = feed.follow('t1', first);
    const last = await commitElsewhere(store, 3);
    // Three wake-ups in one turn: one read.
    wake('t1', last - 1);
    wake('t1', last);
    wake('t1', last);
    await until(() => delivered.length === 3);
    expect(delivered.map((e) => e.sequence)).toEqual([2, 3, 4]);
    expect(reads).toEqual([1]);
    // This process's own commit is reported as seen: its wake-up reads nothing.
    const own = await commitElsewhere(store, 1);
    feed.seen('t1', own);
    wake('t1', own);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toEqual([1]);
    stop();
  });

  it('shares one watch between followers of a task and drops it when the last one stops', () => {
    const { coordinator, watching } = manualCoordinator();
    const feed = new RemoteFeed(coordinator, createMemoryTaskStore(), () => {});
    const a = feed.follow('t1', 0);
    const b = feed.follow('t1', 0);
    expect(watching('t1')).toBe(1);
    a();
    a();
    expect(feed.follows('t1')).toBe(true);
    b();
    expect(watching('t1')).toBe(0);
    expect(feed.follows('t1')).toBe(false);
  });

  it('logs a failed read and reads again at the next wake-up', async () => {
    const store = createMemoryTaskStore();
    const { coordinator, wake } = manualCoordinator();
    const warnings: string[] = [];
    let failing = true;
    const flaky = { ...store, readEvents: (id: string, after: number, limit?: number) => (failing ? Promise.reject(new Error('db down')) : store.readEvents(id, after, limit)) };
    const delivered: number[] = [];
    const feed = new RemoteFeed(coordinator, flaky as never, (_id, events) => delivered.push(...events.map((e) => e.sequence)), {
      warn: (_fields, message) => warnings.push(message ?? ''),
      error: () => {},
    });
    feed.follow('t1', await commitElsewhere(store, 0));
    const last = await commitElsewhere(store, 2);
    wake('t1', last);
    await until(() => warnings.length === 1);
    failing = false;
    wake('t1', last);
    await until(() => delivered.length === 2);
    expect(delivered).toEqual([2, 3]);
  });
});
