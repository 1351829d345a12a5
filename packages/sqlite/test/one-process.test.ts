import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteTaskStore } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';

const TSX = createRequire(import.meta.url).resolve('tsx');
const MAIN = join(import.meta.dirname, 'hold-file-main.ts');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Starts hold-file-main.ts on `file`; resolves once it holds the file, with the ids it acknowledged so far (a live list) and its exit. */
async function holder(file: string, from: number) {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', MAIN, file, String(from)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let buffer = '';
  const waiters: { count: number; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith('acked ')) acked.push(line.slice(6));
      const count = line === 'ready' ? 0 : acked.length;
      for (const w of waiters.filter((w) => count >= w.count)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
    }
  });
  /** Resolves once the holder is ready and has acknowledged at least `count` commits. */
  const until = (count: number) =>
    Promise.race([
      new Promise<void>((resolve) => waiters.push({ count, resolve })),
      exited.then(() => Promise.reject(new Error(`the holder exited early:\n${stderr}`))),
    ]);
  return { child, acked, exited, until };
}

describe('one process per SQLite file, and kill -9', () => {
  it('refuses a second process with a clear error, and keeps every acknowledged commit of a process killed with SIGKILL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-one-'));
    dirs.push(dir);
    const file = join(dir, 'tasks.db');
    let total = 0;
    for (let round = 1; round <= 3; round++) {
      const first = await holder(file, total);
      await first.until(0);
      expect(() => nodeSqlite(file)).toThrow(/in use by another process.*one process at a time/);
      await first.until(20);
      first.child.kill('SIGKILL');
      await first.exited;
      const acked = [...first.acked];
      // The lock went with the process: this one opens the file and finds every acknowledged commit whole.
      const store = await createSqliteTaskStore({ driver: nodeSqlite(file) });
      try {
        for (const id of acked) {
          expect(await store.get(id), id).toMatchObject({ version: 1, lastSequence: 3 });
          expect((await store.readEvents(id, 0)).map((e) => e.sequence)).toEqual([1, 2, 3]);
        }
        const listed = await store.list({ owner: 'alice', pageSize: 1 });
        expect(listed.totalSize).toBeGreaterThanOrEqual(acked.length);
        total = listed.totalSize;
      } finally {
        await store.close();
      }
    }
  }, 60_000);
});
