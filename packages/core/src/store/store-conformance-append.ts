import { describe, expect, it } from 'vitest';
import { reduce } from '../lifecycle/reduce.js';
import type { StreamResponse, Task } from '../schema/task.js';
import { commitOf, testTask, testTimestamp, type ConformanceRunner } from './store-conformance-fixtures.js';
import type { TaskStore } from './task-store.js';

/** A working status update (same state) with `metadata.progress` `n`, stamped `n` seconds in. */
export function testProgress(task: Task, n: number): StreamResponse {
  return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_WORKING', timestamp: testTimestamp(n) }, metadata: { progress: n } } };
}

/** Chunk `n` of artifact `out` (the first one creates it). */
export function testChunk(task: Task, n: number): StreamResponse {
  return { artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact: { artifactId: 'out', parts: [{ text: `chunk ${n} ` }] }, append: n > 1 } };
}

/** The task after `events`, by the lifecycle reducer (what the service commits); throws when it refuses one. */
export function reducedTask(task: Task, events: readonly StreamResponse[]): Task {
  let next = task;
  for (const event of events) {
    const result = reduce(next, event as Parameters<typeof reduce>[1]);
    if (!result.ok) throw new Error(result.error.message);
    next = result.task;
  }
  return next;
}

/**
 * Streams `rounds` rounds (a same-state status update, then an artifact
 * chunk, each an append-only commit) onto a new working task `taskId`
 * (owner `alice`), awaiting `check` after each commit; resolves the task
 * and its version.
 */
export async function streamAppends(
  store: TaskStore,
  rounds: number,
  check: (task: Task, version: number) => Promise<void> = async () => undefined,
  taskId = 't1',
): Promise<{ task: Task; version: number }> {
  let task = testTask(taskId, { history: 1 });
  let version = (await store.commit(commitOf(task, 0, [{ task }]))).version;
  for (let n = 1; n <= rounds; n++) {
    for (const event of [testProgress(task, n), testChunk(task, n)]) {
      task = reducedTask(task, [event]);
      version = (await store.commit({ ...commitOf(task, version, [event]), appendOnly: true })).version;
      await check(task, version);
    }
  }
  return { task, version };
}

/**
 * Registers the rules of append-only commits (`CommitRequest.appendOnly`:
 * what a streaming agent's chunks and progress updates are) with vitest:
 * whatever a store does with them, every read (`get`, `list`, `readEvents`)
 * sees every commit, across snapshots, state changes and (with `durable`)
 * a reopen; with `readsHead`, `head` answers what `get` does.
 */
export function registerAppendConformance(run: ConformanceRunner, durable: boolean, readsHead = false): void {
  describe('append-only commits', () => {
    it('a long stream reads back whole after every commit: get, list and the log', run(async ({ store }) => {
      const { task, version } = await streamAppends(store, 130, async (expected, at) => {
        const read = await store.get('t1');
        expect(read?.version).toBe(at);
        expect(read?.task).toEqual(expected);
      });
      expect(task.artifacts?.[0]?.parts).toHaveLength(130);
      expect((await store.list({ owner: 'alice', includeArtifacts: true })).tasks).toEqual([task]);
      const log = await store.readEvents('t1', 0);
      expect(log.map((e) => e.sequence)).toEqual(Array.from({ length: 261 }, (_, i) => i + 1));
      // A state change after the appends: the task as committed, and nothing appended is lost.
      const done: Task = reducedTask(task, [{ statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED', timestamp: testTimestamp(999) } } }]);
      await store.commit(commitOf(done, version, []));
      expect((await store.get('t1'))?.task).toEqual(done);
      expect((await store.list({ owner: 'alice', includeArtifacts: true, status: 'TASK_STATE_COMPLETED' })).tasks).toEqual([done]);
    }));
    it('a list between appends sees the newest status timestamp and every chunk', run(async ({ store }) => {
      await streamAppends(store, 3, async (expected) => {
        const [listed] = (await store.list({ owner: 'alice', includeArtifacts: true, statusTimestampAfter: expected.status.timestamp })).tasks;
        expect(listed).toEqual(expected);
      });
    }));
    it('a writer that does not append (no appendOnly) after appends is read as it wrote', run(async ({ store }) => {
      const { task, version } = await streamAppends(store, 5);
      const rewritten: Task = { ...task, artifacts: [{ artifactId: 'other', parts: [{ text: 'replaced' }] }] };
      await store.commit(commitOf(rewritten, version, [testProgress(task, 6)]));
      expect((await store.get('t1'))?.task).toEqual(rewritten);
    }));
    if (readsHead) {
      it('head answers what get does after every commit, and undefined for an unknown task', run(async ({ store }) => {
        expect(store.head).toBeTypeOf('function');
        const headOf = async (id: string) => {
          const record = await store.get(id);
          return record && { taskId: record.task.id, version: record.version, owner: record.owner, lastSequence: record.lastSequence, state: record.task.status.state };
        };
        const { task, version } = await streamAppends(store, 3, async () => expect(await store.head!('t1')).toEqual(await headOf('t1')));
        const asked: Task = { ...task, status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: testTimestamp(99) } };
        await store.commit(commitOf(asked, version, [{ statusUpdate: { taskId: 't1', contextId: 'ctx-1', status: asked.status } }]));
        expect(await store.head!('t1')).toEqual({ taskId: 't1', version: version + 1, owner: 'alice', lastSequence: 8, state: 'TASK_STATE_INPUT_REQUIRED' });
        expect(await store.head!('t1')).toEqual(await headOf('t1'));
        expect(await store.head!('nope')).toBeUndefined();
      }));
    }
    if (durable) {
      it('a reopened store reads every appended commit', run(async (ctx) => {
        const { task, version } = await streamAppends(ctx.store, 20);
        const store = await ctx.reopen();
        expect(await store.get('t1')).toMatchObject({ task, version, lastSequence: 41 });
        const next = reducedTask(task, [testChunk(task, 21)]);
        await store.commit({ ...commitOf(next, version, [testChunk(task, 21)]), appendOnly: true });
        expect((await store.get('t1'))?.task).toEqual(next);
      }));
    }
  });
}
