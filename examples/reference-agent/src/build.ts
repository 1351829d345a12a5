// Builds the reference agent that `npm start` runs with plain `node`:
//   dist/main.js           the agent, its servers and the workspace packages it
//                          uses, bundled from their TypeScript sources (no
//                          package needs building first); third-party imports
//                          are left to Node, pointing at the installed files
//   dist/web-page.js       the chat page's script, bundled for browsers
//   dist/build-inputs.json the files both were made from: `npm start`
//                          rebuilds when one of them is newer than main.js
// Run it with `pnpm --filter @taskwire/reference-agent build`.
import { isBuiltin } from 'node:module';
import { writeFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Metafile, Plugin } from 'esbuild';
import { build } from 'esbuild';
import { PAGE_SCRIPT_FILE, pageBundleOptions } from './web/page-bundle.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
/** The package folder (`examples/reference-agent`). */
const PACKAGE = resolve(HERE, '..');
/** Where the build goes. */
export const DIST = resolve(PACKAGE, 'dist');
/** What `dist/build-inputs.json` holds. */
export interface BuildInputs {
  /** Every file the build read, relative to the package folder. */
  readonly inputs: readonly string[];
}

/**
 * Keeps a third-party import out of the bundle and points it at the file
 * the importing module would load (so each package resolves its own
 * dependencies, as it does unbundled). Node built-ins stay as they are;
 * `@taskwire/*` packages are bundled from their sources.
 */
const installedDependencies: Plugin = {
  name: 'installed-dependencies',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving' || args.path.startsWith('@taskwire/')) return undefined;
      if (isBuiltin(args.path)) return { path: args.path, external: true };
      const found = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: pathToFileURL(found.path).href, external: true };
    });
  },
};

const inputsOf = (meta: Metafile | undefined): string[] => Object.keys(meta?.inputs ?? {});

/** Builds `dist/` (see the file header); resolves with the built server's path. */
export async function buildReferenceAgent(): Promise<string> {
  const outfile = resolve(DIST, 'main.js');
  const [server, page] = await Promise.all([
    build({
      entryPoints: [resolve(HERE, 'main.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@taskwire/source'],
      sourcemap: true,
      metafile: true,
      logLevel: 'warning',
      absWorkingDir: PACKAGE,
      plugins: [installedDependencies],
    }),
    build({ ...pageBundleOptions(), outfile: resolve(DIST, PAGE_SCRIPT_FILE), metafile: true, absWorkingDir: PACKAGE }),
  ]);
  const own = relative(PACKAGE, fileURLToPath(import.meta.url));
  const record: BuildInputs = { inputs: [...new Set([own, ...inputsOf(server.metafile), ...inputsOf(page.metafile)])] };
  await writeFile(resolve(DIST, 'build-inputs.json'), `${JSON.stringify(record, null, 1)}\n`);
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildReferenceAgent();
}
