import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { workerdBuildOptions } from '../../../scripts/workerd-bundle.js';

/** Where the local D1 database lives between runs (as `wrangler dev` keeps it under .wrangler/). */
export const DEFAULT_STATE = join(import.meta.dirname, '..', '.wrangler', 'state');

/** Bundles src/worker.ts for workerd, as wrangler would: one ES module. */
export async function bundleWorker(): Promise<string> {
  const result = await build({ ...workerdBuildOptions(join(import.meta.dirname, 'worker.ts'), { source: true }), write: false });
  return result.outputFiles[0]!.text;
}

/**
 * Runs the Worker locally in workerd (miniflare) on `port` of 127.0.0.1, its
 * D1 binding `DB` kept in `state` across restarts. Each call is a new
 * isolate: what it knows comes from D1.
 */
export async function startLocalWorker(script: string, port: number, state = DEFAULT_STATE): Promise<Miniflare> {
  const mf = new Miniflare({
    modules: true,
    script,
    compatibilityDate: '2026-07-01',
    compatibilityFlags: ['nodejs_compat'],
    d1Databases: ['DB'],
    d1Persist: join(state, 'd1'),
    host: '127.0.0.1',
    port,
  });
  await mf.ready;
  return mf;
}
