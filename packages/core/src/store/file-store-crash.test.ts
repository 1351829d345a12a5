import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FileTaskStore, StoreLockedError } from './file-store.js';

// The child runs this package's TypeScript source through tsx (a root devDependency).
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const source = pathToFileURL(fileURLToPath(new URL('../file.ts', import.meta.url))).href;

const CHILD = `
import { FileTaskStore } from ${JSON.stringify(source)};
const [dir, mode] = process.argv.slice(2);
const store = await FileTaskStore.open(dir, { compactMinBytes: 256 * 1024, maxEventsPerTask: 50 });
const say = (line) => process.stdout.write(line + '\\n');
if (mode === 'hold') {
  say('ready');
  setInterval(() => {}, 1 << 30);
} else {
  const pad = 'p'.repeat(300);
  const task = (id, v) => ({ id, contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() }, metadata: { v, pad } });
  const event = (id, n) => ({ statusUpdate: { taskId: id, contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } });
  const worker = async (w) => {
    for (let i = 0; ; i++) {
      const id = 'w' + w + '-' + i;
      for (let v = 1; v <= 4; v++) {
        const r = await store.commit({ task: task(id, v), expectedVersion: v - 1, owner: 'o', events: [event(id, v), event(id, v)] });
        say('ack ' + id + ' ' + r.version + ' ' + r.lastSequence);
      }
      if (i % 3 === 0) {
        say('deleting ' + id);
        await store.delete(id);
        say('del ' + id);
      }
    }
  };
  for (let w = 0; w < 8; w++) void worker(w);
}
`;

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function startChild(mode: 'commit' | 'hold') {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-file-crash-'));
  dirs.push(dir);
  const script = join(dir, 'child.mjs');
  await writeFile(script, CHILD);
  const storeDir = join(dir, 'store');
  const child = spawn(process.execPath, ['--import', tsx, script, storeDir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  /** Calls `onLine` for each line until it returns true; rejects if the child ends first. */
  const until = (onLine: (line: string) => boolean) =>
    new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => onLine(line) && resolve());
      void exited.then(() => reject(new Error(`child ended early: ${stderr}`)));
    });
  return { child, storeDir, until, exited };
}

describe('FileTaskStore across processes', () => {
  it('keeps every acknowledged commit after kill -9 at an arbitrary moment', async () => {
    const { child, storeDir, until, exited } = await startChild('commit');
    const acked = new Map<string, { version: number; lastSequence: number }>();
    const deleted = new Set<string>();
    const deleting = new Set<string>(); // a delete in flight may have reached the disk unreported
    let count = 0;
    await until((line) => {
      const [kind, id, version, lastSequence] = line.split(' ');
      if (kind === 'ack') acked.set(id!, { version: Number(version), lastSequence: Number(lastSequence) });
      if (kind === 'del') deleted.add(id!);
      if (kind === 'deleting') deleting.add(id!);
      return ++count === 1500;
    });
    child.kill('SIGKILL');
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    expect(acked.size).toBeGreaterThan(100);
    const store = await FileTaskStore.open(storeDir);
    try {
      for (const [id, { version, lastSequence }] of acked) {
        const record = await store.get(id);
        if (deleted.has(id)) {
          expect(record, id).toBeUndefined();
          continue;
        }
        if (deleting.has(id) && record === undefined) continue;
        // The child may have committed more than it managed to report, never less.
        expect(record?.version, id).toBeGreaterThanOrEqual(version);
        const events = await store.readEvents(id, 0);
        expect(events.length, id).toBeGreaterThanOrEqual(lastSequence);
        expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      }
      // The reopened store takes new commits normally.
      const next = await store.commit({
        task: { id: 'after-crash', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
        expectedVersion: 0,
        owner: 'o',
        events: [],
      });
      expect(next.version).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('refuses a directory locked by a live process, naming its pid; takes it over once that process is gone', async () => {
    const { child, storeDir, until, exited } = await startChild('hold');
    await until((line) => line === 'ready');
    const error = await FileTaskStore.open(storeDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).pid).toBe(child.pid);
    expect((error as Error).message).toContain(`locked by process ${child.pid}`);
    expect((error as Error).message).toMatch(/Stop that process or use another directory/);
    child.kill('SIGKILL');
    await exited;
    const store = await FileTaskStore.open(storeDir);
    await store.close();
  });
});
