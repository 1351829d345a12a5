import type { Options } from 'tsup';

/**
 * The build every publishable package uses: ESM and CJS, with separate type
 * files for each (`.d.ts` for import, `.d.cts` for require), so both module
 * systems resolve their own declarations. No source maps: the output is not
 * minified (stack traces name our functions and lines of readable code), the
 * TypeScript sources are not published for maps to point at, and maps that
 * carry the sources would double the tarballs. Built-in modules keep their
 * `node:` prefix, so bundlers for other runtimes (Workers, Deno) know them
 * for what they are.
 */
export function packageBuild(entry: Record<string, string>): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: false,
    clean: true,
    target: 'node20',
    splitting: true,
    treeshake: true,
    removeNodeProtocol: false,
  };
}
