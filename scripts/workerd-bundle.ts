/** esbuild options (a subset, typed here: esbuild's own types are not in reach of every user of this module). */
export interface WorkerdBuildOptions {
  readonly entryPoints: string[];
  readonly bundle: true;
  readonly format: 'esm';
  readonly platform: 'neutral';
  readonly mainFields: string[];
  readonly conditions: string[];
  readonly external: string[];
  readonly logLevel: 'error';
}

/**
 * The esbuild options that bundle `entry` into one ES module for workerd,
 * as wrangler does: the `workerd`, `worker` and `browser` export conditions
 * (after `@taskwire/source` when `source` is true, so the workspace's
 * TypeScript sources are bundled instead of the built packages), `node:*`
 * imports left to the runtime (Node's http is only imported by what
 * workerd never calls). Add `write: false` or `outfile` as the caller needs.
 */
export function workerdBuildOptions(entry: string, { source }: { readonly source: boolean }): WorkerdBuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: [...(source ? ['@taskwire/source'] : []), 'workerd', 'worker', 'browser', 'import'],
    external: ['node:*'],
    logLevel: 'error',
  };
}
