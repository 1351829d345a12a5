import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../temp-dirs.js';
import { encodeFrame } from '../store/file/frame.js';
import { runPushConfigStoreConformance, testDeadLetter, testPushConfig } from '../testing.js';
import { PUSH_LOG } from './file-push-log.js';
import { FilePushConfigStore } from './file-push-store.js';
import { createMemoryPushConfigStore } from './memory-push-store.js';

const tempDir = useTempDirs('taskwire-push-store-');

runPushConfigStoreConformance('MemoryPushConfigStore', async () => ({ store: createMemoryPushConfigStore() }));

runPushConfigStoreConformance(
  'FilePushConfigStore',
  async () => {
    const directory = await tempDir();
    return { store: await FilePushConfigStore.open({ directory }), reopen: () => FilePushConfigStore.open({ directory }) };
  },
  { durable: true },
);

function warnings(): { warn(fields: object, message?: string): void; seen: string[] } {
  const seen: string[] = [];
  return { seen, warn: (_fields, message) => void seen.push(message ?? '') };
}

describe('FilePushConfigStore', () => {
  it('drops a torn tail on open, keeping every acknowledged write, and reports it', async () => {
    const directory = await tempDir();
    const store = await FilePushConfigStore.open({ directory });
    await store.put(testPushConfig('t1', 'c1'));
    await store.advance('t1', 'c1', 3);
    await store.close();
    // A crash in the middle of the next write: a frame header promising more bytes than follow.
    await appendFile(join(directory, PUSH_LOG), Buffer.from([200, 0, 0, 0, 1, 2, 3, 4, 0x7b]));
    const logger = warnings();
    const again = await FilePushConfigStore.open({ directory }, { logger });
    expect(await again.get('t1', 'c1')).toEqual(testPushConfig('t1', 'c1', 3));
    expect(logger.seen).toEqual([expect.stringContaining('truncating a torn or corrupt tail')]);
    await again.advance('t1', 'c1', 4);
    await again.close();
    const third = await FilePushConfigStore.open({ directory });
    expect((await third.get('t1', 'c1'))?.delivered).toBe(4);
    await third.close();
  });

  it('refuses a file that is not a push log, and a second open in the same process', async () => {
    const directory = await tempDir();
    await writeFile(join(directory, PUSH_LOG), Buffer.alloc(100, 0x41));
    await expect(FilePushConfigStore.open({ directory })).rejects.toThrow(/is not a Taskwire push log/);
    await writeFile(join(directory, PUSH_LOG), encodeFrame(JSON.stringify({ t: 'h', format: 1 })));
    await expect(FilePushConfigStore.open({ directory })).rejects.toThrow(/not a push log/);
    expect((await readFile(join(directory, PUSH_LOG))).length).toBeGreaterThan(8);
    const other = await tempDir();
    const first = await FilePushConfigStore.open({ directory: other });
    await expect(FilePushConfigStore.open({ directory: other })).rejects.toThrow(/already open/);
    await first.close();
    await (await FilePushConfigStore.open({ directory: other })).close();
  });

  it('compacts its log to the live state (an owner-only file) once it has grown, and reopens the same', async () => {
    const directory = await tempDir();
    const store = await FilePushConfigStore.open({ directory }, { compactMinBytes: 8 * 1024 });
    await store.put(testPushConfig('t1', 'c1'));
    await store.put(testPushConfig('t1', 'c2'));
    for (let s = 1; s <= 400; s++) await store.advance('t1', 'c1', s);
    await store.compact();
    const { size, mode } = await stat(join(directory, PUSH_LOG));
    expect(size).toBeLessThan(1024);
    if (process.platform !== 'win32') expect(mode & 0o777).toBe(0o600); // it holds webhook credentials
    expect(store.logBytes).toBe(size);
    await store.advance('t1', 'c2', 7);
    const before = await store.all();
    await store.close();
    const again = await FilePushConfigStore.open({ directory });
    expect(await again.all()).toEqual(before);
    expect((await again.get('t1', 'c1'))?.delivered).toBe(400);
    await again.close();
  });

  it('compacts by itself past compactMinBytes', async () => {
    const directory = await tempDir();
    const store = await FilePushConfigStore.open({ directory }, { compactMinBytes: 4 * 1024 });
    await store.put(testPushConfig('t1', 'c1'));
    for (let s = 1; s <= 1000; s++) await store.advance('t1', 'c1', s);
    await store.close();
    expect((await stat(join(directory, PUSH_LOG))).size).toBeLessThan(16 * 1024);
    const again = await FilePushConfigStore.open({ directory });
    expect((await again.get('t1', 'c1'))?.delivered).toBe(1000);
    await again.close();
  });

  it('keeps only the newest maxDeadLetters dead letters, across a reopen', async () => {
    const directory = await tempDir();
    const store = await FilePushConfigStore.open({ directory }, { maxDeadLetters: 2 });
    await store.put(testPushConfig('t1', 'c1'));
    for (const s of [1, 2, 3]) await store.deadLetter(testDeadLetter('t1', 'c1', s));
    expect((await store.listDeadLetters()).map((l) => l.sequence)).toEqual([2, 3]);
    await store.close();
    const again = await FilePushConfigStore.open({ directory }, { maxDeadLetters: 2 });
    expect((await again.listDeadLetters()).map((l) => l.sequence)).toEqual([2, 3]);
    await again.close();
    expect((await readFile(join(directory, PUSH_LOG))).includes('TASK_STATE_WORKING')).toBe(true);
  });

  it('keeps removed dead letters out across a compaction and a reopen', async () => {
    const directory = await tempDir();
    const store = await FilePushConfigStore.open({ directory });
    await store.put(testPushConfig('t1', 'c1'));
    for (const s of [1, 2, 3]) await store.deadLetter(testDeadLetter('t1', 'c1', s, { error: `failure ${s}` }));
    expect(await store.removeDeadLetters({ sequence: 2 })).toBe(1);
    await store.close();
    const again = await FilePushConfigStore.open({ directory });
    expect((await again.listDeadLetters()).map((l) => l.sequence)).toEqual([1, 3]);
    expect(await again.removeDeadLetters({ sequence: 1 })).toBe(1);
    await again.compact();
    await again.close();
    expect((await readFile(join(directory, PUSH_LOG), 'utf8')).match(/failure \d/g)).toEqual(['failure 3']);
    const third = await FilePushConfigStore.open({ directory });
    expect((await third.listDeadLetters()).map((l) => l.sequence)).toEqual([3]);
    expect((await third.get('t1', 'c1'))?.delivered).toBe(3);
    await third.close();
  });
});

describe('MemoryPushConfigStore', () => {
  it('keeps only the newest maxDeadLetters dead letters', async () => {
    const store = createMemoryPushConfigStore({ maxDeadLetters: 1 });
    await store.deadLetter(testDeadLetter('t1', 'c1', 1));
    await store.deadLetter(testDeadLetter('t1', 'c1', 2));
    expect((await store.listDeadLetters()).map((l) => l.sequence)).toEqual([2]);
  });
});
