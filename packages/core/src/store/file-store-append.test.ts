import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { commitOf, reducedTask, streamAppends, testChunk, testTask } from '../testing.js';
import { encodeFrame } from './file/frame.js';
import { FILE_STORE_LOG, FileTaskStore } from './file-store.js';

const withDir = async (fn: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-file-append-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

it('an append-only commit logs its events without the task: the log grows by the chunk, not by the artifact so far', () =>
  withDir(async (dir) => {
    const store = await FileTaskStore.open(dir, { fsync: false, snapshots: { events: 1_000, ms: 60_000 } });
    const growth: number[] = [];
    await streamAppends(store, 300, async () => {
      growth.push(store.stats().appendedBytes);
    });
    const perCommit = growth.slice(1).map((bytes, i) => bytes - growth[i]!);
    const sum = (bytes: number[]) => bytes.reduce((a, b) => a + b, 0);
    // The last 20 commits append about as many bytes as the first 20 (the numbers in them have more digits), not the artifact so far.
    expect(sum(perCommit.slice(-20))).toBeLessThan(sum(perCommit.slice(0, 20)) * 1.1);
    await store.close();
  }));

it('append-only commits survive a reopen and a compaction, with the task read whole', () =>
  withDir(async (dir) => {
    const store = await FileTaskStore.open(dir, { fsync: false });
    const { task, version } = await streamAppends(store, 30);
    const reopened = await (await store.close(), FileTaskStore.open(dir, { fsync: false }));
    expect(await reopened.get('t1')).toMatchObject({ task, version, lastSequence: 61 });
    // A compaction writes each task as it is stored (its JSON and the events after it); a commit made after still appends.
    await reopened.compact();
    const next = reducedTask(task, [testChunk(task, 31)]);
    await reopened.commit({ ...commitOf(next, version, [testChunk(task, 31)]), appendOnly: true });
    const compacted = await (await reopened.close(), FileTaskStore.open(dir, { fsync: false }));
    expect(await compacted.get('t1')).toMatchObject({ task: next, version: version + 1, lastSequence: 62 });
    expect((await compacted.list({ owner: 'alice', includeArtifacts: true })).tasks).toEqual([next]);
    await compacted.close();
  }));

it('reads a log of the previous format (1)', () =>
  withDir(async (dir) => {
    const task = testTask('t1');
    const header = JSON.stringify({ t: 'h', format: 1 });
    const commit = [JSON.stringify({ t: 'c', s: 1, id: 't1', o: 'alice', v: 1, ctx: 'ctx-1', st: task.status.state, ts: task.status.timestamp }), JSON.stringify(task), JSON.stringify({ task })].join('\n');
    await writeFile(join(dir, FILE_STORE_LOG), Buffer.concat([encodeFrame(header), encodeFrame(commit)]));
    const store = await FileTaskStore.open(dir, { fsync: false });
    expect(await store.get('t1')).toEqual({ task, version: 1, owner: 'alice', lastSequence: 1 });
    await store.close();
  }));
