import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';

/** The file name of the page's browser script beside the built server (`dist/web-page.js`, written by `src/build.ts`). */
export const PAGE_SCRIPT_FILE = 'web-page.js';

/**
 * esbuild options that bundle the page's script (`src/web/app.ts` and
 * `@taskwire/client` from its TypeScript sources) for browsers, minified,
 * as one ES module. The caller adds where the output goes (`write: false`
 * for memory, `outfile` for a file).
 */
export function pageBundleOptions(): BuildOptions {
  return {
    entryPoints: [fileURLToPath(new URL('./app.ts', import.meta.url))],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    conditions: ['@taskwire/source'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  };
}
