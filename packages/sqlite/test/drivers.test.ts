import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryPushConfigStore, createMemoryTaskStore } from '@taskwire/core';
import { afterAll, describe, expect, it } from 'vitest';
import { npmBinary } from '../../../scripts/release/npm-binaries.js';
import { workerdBuildOptions } from '../../../scripts/workerd-bundle.js';
import { createSqlitePushConfigStore, createSqliteTaskStore } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';
import { storeScenario } from './scenario.js';

const ROOT = join(import.meta.dirname, '../../..');
/** Where runtimes from npm are unpacked (shared with scripts/runtimes.test.ts). */
const RUNTIMES = join(ROOT, 'node_modules', '.cache', 'taskwire-runtimes');
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** The scenario's transcript on the memory stores: what every SQLite driver must give too. */
async function referenceTranscript() {
  return storeScenario(createMemoryTaskStore(), createMemoryPushConfigStore());
}

describe('the store scenario', () => {
  it('gives on node:sqlite the transcript the memory stores give', async () => {
    const driver = nodeSqlite(':memory:');
    const tasks = await createSqliteTaskStore({ driver });
    const configs = await createSqlitePushConfigStore({ driver });
    try {
      expect(await storeScenario(tasks, configs)).toEqual(await referenceTranscript());
    } finally {
      await tasks.close();
    }
  });
});

describe('core conformance suites under Bun', () => {
  it('pass on bun:sqlite (bun test, with vitest\'s describe/it/expect mapped to bun:test)', () => {
    const bun = npmBinary('@oven/bun-linux-x64@1.4.5', 'bin/bun', RUNTIMES);
    const run = spawnSync(bun, ['test', '--conditions=@taskwire/source', '--preload', './test/bun-vitest-shim.ts', './test/bun-conformance.bun.ts'], {
      encoding: 'utf8',
      cwd: join(import.meta.dirname, '..'),
    });
    const output = `${run.stdout}${run.stderr}`;
    if (run.status !== 0) throw new Error(`bun test exited with ${run.status}:\n${output}`);
    expect(output).toMatch(/\b0 fail\b/);
    expect(Number(/(\d+) pass\b/.exec(output)?.[1])).toBeGreaterThanOrEqual(60);
  }, 120_000);
});

describe('the store scenario under Bun', () => {
  it('gives on bun:sqlite, in a database file, the transcript the memory stores give', async () => {
    const bun = npmBinary('@oven/bun-linux-x64@1.4.5', 'bin/bun', RUNTIMES);
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-bun-'));
    dirs.push(dir);
    const run = spawnSync(bun, ['--conditions=@taskwire/source', join(import.meta.dirname, 'bun-main.ts'), join(dir, 'tasks.db')], { encoding: 'utf8', cwd: ROOT });
    if (run.status !== 0) throw new Error(`bun exited with ${run.status}:\n${run.stderr}`);
    expect(JSON.parse(run.stdout)).toEqual(await referenceTranscript());
  }, 120_000);
});

/** What this test uses of esbuild (tsup's: not a dependency here, so its types are out of reach). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>;
}

describe('the store scenario in workerd, on Cloudflare D1 (miniflare)', () => {
  it('gives on a D1 binding the transcript the memory stores give', async () => {
    const esbuild = createRequire(createRequire(join(ROOT, 'package.json')).resolve('tsup'))('esbuild') as Esbuild;
    const bundle = await esbuild.build({ ...workerdBuildOptions(join(import.meta.dirname, 'd1-worker.ts'), { source: true }), write: false });
    const { Miniflare } = await import('miniflare');
    const mf = new Miniflare({ modules: true, script: bundle.outputFiles[0]!.text, d1Databases: ['DB'], compatibilityDate: '2026-07-01' });
    try {
      const response = await mf.dispatchFetch('http://worker.test/');
      const text = await response.text();
      if (!response.ok) throw new Error(`the worker answered ${response.status}: ${text}`);
      expect(JSON.parse(text)).toEqual(await referenceTranscript());
    } finally {
      await mf.dispose();
    }
  }, 120_000);
});
