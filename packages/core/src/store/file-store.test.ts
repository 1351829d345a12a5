import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import type { Task } from '../schema/task.js';
import { commitOf, runTaskStoreConformance, testEvent, testTask } from '../testing.js';
import { FILE_STORE_LOG, FileTaskStore, StoreLockedError, type FileTaskStoreOptions } from './file-store.js';
import type { TaskStore } from './task-store.js';

const tempDir = useTempDirs('taskwire-file-store-');

/** A file store in a fresh directory, reopened with the same options. */
async function fileHarness(options: FileTaskStoreOptions = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-file-store-'));
  return {
    store: await FileTaskStore.open(dir, options),
    reopen: () => FileTaskStore.open(dir, options),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

runTaskStoreConformance('FileTaskStore', () => fileHarness(), {
  durable: true,
  retention: (maxEventsPerTask) => fileHarness({ maxEventsPerTask }),
  keepsTrace: true,
});

/** Everything a reader can see of `ids`: records and event logs. */
async function dump(store: TaskStore, ids: readonly string[]): Promise<unknown[]> {
  return Promise.all(ids.map(async (id) => [id, await store.get(id), await store.readEvents(id, 0)]));
}

function warnings(): { warn(fields: object, message?: string): void; seen: string[] } {
  const seen: string[] = [];
  return { seen, warn: (_fields, message) => void seen.push(message ?? '') };
}

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function dirBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name)).catch(() => ({ size: 0 }))).size; // a file may be renamed meanwhile
  return total;
}

describe('FileTaskStore torn tails', () => {
  /** Runs 30 operations, one record each; returns the log, its size after each op and the state after each op. */
  async function history() {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir);
    const ids = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const sizes = [store.stats().logBytes];
    const states = [await dump(store, ids)];
    const versions = new Map<string, number>();
    for (let op = 0; op < 30; op++) {
      const id = ids[op % ids.length]!;
      const version = versions.get(id) ?? 0;
      if (op === 20) {
        await store.delete('t4');
        versions.delete('t4');
      } else {
        const task = testTask(id, { at: op, history: op % 3, contextId: `c${op % 2}` });
        await store.commit(commitOf(task, version, Array.from({ length: op % 4 }, (_, n) => testEvent(task, op * 10 + n))));
        versions.set(id, version + 1);
      }
      sizes.push(store.stats().logBytes);
      states.push(await dump(store, ids));
    }
    await store.close();
    return { log: await readFile(join(dir, FILE_STORE_LOG)), sizes, states, ids };
  }

  it('keeps every whole record and drops the torn one, wherever the file was cut', async () => {
    const { log, sizes, states, ids } = await history();
    const next = random(42);
    const last = sizes[sizes.length - 2]!;
    const offsets = new Set([0, 3, sizes[0]! - 1, sizes[0]!, Math.floor((last + log.length) / 2), log.length - 1, log.length]);
    for (const size of sizes.slice(-4)) [size - 1, size, size + 1, size + 7, size + 8].forEach((o) => offsets.add(o));
    while (offsets.size < 40) offsets.add(Math.floor(next() * log.length));
    for (const offset of [...offsets].filter((o) => o >= 0 && o <= log.length)) {
      const dir = await tempDir();
      await writeFile(join(dir, FILE_STORE_LOG), log.subarray(0, offset));
      const logger = warnings();
      const store = await FileTaskStore.open(dir, { logger });
      const whole = sizes.filter((s) => s <= offset).length; // ops whose record is entirely before the cut
      expect(await dump(store, ids), `cut at byte ${offset}`).toEqual(states[Math.max(0, whole - 1)]);
      expect(logger.seen.length, `warning at byte ${offset}`).toBe(offset === 0 || sizes.includes(offset) ? 0 : 1);
      // The tail was truncated: later commits land after whole records and survive another reopen.
      await store.commit(commitOf(testTask('after'), 0, [testEvent(testTask('after'), 1)]));
      await store.close();
      const again = await FileTaskStore.open(dir, { logger });
      expect(await dump(again, ids)).toEqual(states[Math.max(0, whole - 1)]);
      expect((await again.get('after'))?.lastSequence).toBe(1);
      await again.close();
      expect(logger.seen.length).toBeLessThanOrEqual(1);
    }
  });

  it('drops a last record that fails its checksum', async () => {
    const { log, sizes, states, ids } = await history();
    const dir = await tempDir();
    const damaged = Buffer.from(log);
    const lastStart = sizes[sizes.length - 2]!;
    damaged[lastStart + Math.floor((log.length - lastStart) / 2)]! ^= 0x55;
    await writeFile(join(dir, FILE_STORE_LOG), damaged);
    const logger = warnings();
    const store = await FileTaskStore.open(dir, { logger });
    expect(await dump(store, ids)).toEqual(states[states.length - 2]);
    expect(logger.seen[0]).toMatch(/truncating a torn or corrupt tail/);
    expect((await stat(join(dir, FILE_STORE_LOG))).size).toBe(lastStart);
    await store.close();
  });

  it('refuses a file that is not a Taskwire log and leaves it alone', async () => {
    const dir = await tempDir();
    const junk = Buffer.alloc(10_000, 7);
    await writeFile(join(dir, FILE_STORE_LOG), junk);
    await expect(FileTaskStore.open(dir)).rejects.toThrow(/is not a Taskwire task log/);
    expect(await readFile(join(dir, FILE_STORE_LOG))).toEqual(junk);
    // The failed open released the lock.
    await rm(join(dir, FILE_STORE_LOG));
    await (await FileTaskStore.open(dir)).close();
  });
});

describe('FileTaskStore group commit', () => {
  it('writes concurrent commits with fewer fsyncs than commits, all durable', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir);
    const tasks = Array.from({ length: 200 }, (_, i) => testTask(`t${i}`, { at: i }));
    await Promise.all(tasks.map((t) => store.commit(commitOf(t, 0, [testEvent(t, 1)]))));
    const stats = store.stats();
    expect(stats.commits).toBe(200);
    expect(stats.fsyncs).toBe(stats.batches);
    expect(stats.fsyncs).toBeLessThan(200);
    await store.close();
    const reopened = await FileTaskStore.open(dir);
    expect((await reopened.list({ owner: 'alice', pageSize: 100 })).totalSize).toBe(200);
    expect(await reopened.get('t199')).toMatchObject({ version: 1, lastSequence: 1 });
    await reopened.close();
  });

  it('does not fsync with fsync: false', async () => {
    const store = await FileTaskStore.open(await tempDir(), { fsync: false });
    for (let i = 0; i < 5; i++) await store.commit(commitOf(testTask(`t${i}`)));
    expect(store.stats()).toMatchObject({ commits: 5, fsyncs: 0 });
    await store.close();
  });
});

describe('FileTaskStore compaction', () => {
  const options: FileTaskStoreOptions = { compactMinBytes: 32 * 1024, maxEventsPerTask: 5 };

  it('keeps the directory bounded while tasks are rewritten over and over', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir, options);
    const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
    let largest = 0;
    for (let round = 0; round < 200; round++) {
      await Promise.all(ids.map((id) => {
        const task = testTask(id, { at: round, history: 2, artifacts: 1 });
        return store.commit(commitOf(task, round, [testEvent(task, round)]));
      }));
      // Measured once any compaction the round triggered is done: the bound holds between compactions.
      await store.idle();
      largest = Math.max(largest, await dirBytes(dir));
    }
    const written = store.stats().appendedBytes;
    const expected = await dump(store, ids);
    expect(store.stats().compactions).toBeGreaterThan(0);
    expect(written).toBeGreaterThan(20 * largest);
    // About compactRatio x the live data (or compactMinBytes), plus one round of commits.
    expect(largest).toBeLessThan(1.5 * Math.max(32 * 1024, 2 * store.stats().liveBytes) + 16 * 1024);
    await store.close();
    const reopened = await FileTaskStore.open(dir, options);
    expect(await dump(reopened, ids)).toEqual(expected);
    expect((await reopened.readEvents('t3', 0)).map((e) => e.sequence)).toEqual([196, 197, 198, 199, 200]);
    await reopened.close();
    // 4,000 fsynced commits: about 5 s on an idle machine, several times that on a loaded one.
  }, 120_000);

  it('loses nothing committed, deleted or re-created while a compaction runs', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir, { compactMinBytes: 1 << 30 });
    const pad = 'x'.repeat(2_000);
    const tasks: Task[] = Array.from({ length: 1_500 }, (_, i) => ({ ...testTask(`t${i}`, { at: i }), metadata: { pad } }));
    await Promise.all(tasks.map((t) => store.commit(commitOf(t, 0, [testEvent(t, 0)]))));
    const compaction = store.compact();
    // Four writers, each on its own tasks: updates, and deletes followed by re-creates.
    const work = [0, 1, 2, 3].map(async (w) => {
      for (let i = 0; i < 60; i++) {
        const t = tasks[(i * 23 + w) % tasks.length]!;
        const { version } = (await store.get(t.id))!;
        if (i % 10 === 3) await store.delete(t.id);
        const update = { ...t, metadata: { w, i } };
        await store.commit(commitOf(update, i % 10 === 3 ? 0 : version, [testEvent(t, i)]));
      }
    });
    await Promise.all([compaction, ...work]);
    expect(store.stats().compactions).toBe(1);
    const ids = tasks.map((t) => t.id);
    const expected = await dump(store, ids);
    await store.compact();
    expect(await dump(store, ids)).toEqual(expected);
    await store.close();
    const reopened = await FileTaskStore.open(dir);
    expect(await dump(reopened, ids)).toEqual(expected);
    await reopened.close();
  });

  it('ignores a compaction file left by a crash before its rename', async () => {
    const dir = await tempDir();
    const store = await FileTaskStore.open(dir);
    await store.commit(commitOf(testTask('t1'), 0, [testEvent(testTask('t1'), 1)]));
    await store.close();
    await writeFile(join(dir, `${FILE_STORE_LOG}.compact`), 'half a snapshot');
    const reopened = await FileTaskStore.open(dir);
    expect(await reopened.get('t1')).toMatchObject({ version: 1, lastSequence: 1 });
    expect((await readdir(dir)).sort()).toEqual(['LOCK', FILE_STORE_LOG]);
    await reopened.close();
  });
});

describe('FileTaskStore lock', () => {
  it('refuses a second open of the same directory in this process until the first closes', async () => {
    const dir = await tempDir();
    const first = await FileTaskStore.open(dir);
    const error = await FileTaskStore.open(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).pid).toBe(process.pid);
    expect((error as Error).message).toMatch(new RegExp(`already open in this process \\(pid ${process.pid}`));
    await first.close();
    await (await FileTaskStore.open(dir)).close();
  });

  it('takes over a lock left by a process that is gone, or an unreadable one', async () => {
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(gone.stdout);
    for (const content of [JSON.stringify({ pid: deadPid, host: (await import('node:os')).hostname(), token: 'old', since: 'then' }), '']) {
      const dir = await tempDir();
      await writeFile(join(dir, 'LOCK'), content);
      const logger = warnings();
      const store = await FileTaskStore.open(dir, { logger });
      expect(logger.seen).toEqual([expect.stringMatching(/took over a lock/)]);
      await store.close();
      expect(await readdir(dir)).toEqual([FILE_STORE_LOG]);
    }
  });
});
