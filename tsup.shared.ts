import type { Options } from 'tsup';

/**
 * The build every publishable package uses: ESM and CJS, with separate type
 * files for each (`.d.ts` for import, `.d.cts` for require), so both module
 * systems resolve their own declarations.
 */
export function packageBuild(entry: Record<string, string>): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    splitting: true,
    treeshake: true,
  };
}
