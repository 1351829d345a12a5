import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

/** The main entry bundled as a browser app would bundle it. */
function bundle(minify: boolean) {
  return build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', conditions: ['@taskwire/source'], write: false, metafile: true, minify, logLevel: 'silent' });
}

describe('the main entry in a browser', () => {
  it('bundles with esbuild for platform browser, with no Node built-ins and no Node-only transports', async () => {
    const result = await bundle(false);
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /(^|\/)node:|node_modules\/(ws|@grpc|@trpc)\//.test(path))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/["']node:[a-z_]+["']/);
    expect(code).toContain('.well-known/agent-card.json');
  });

  it('leaves out what it does not use: zod is tree-shaken (no locale but English), so the minified bundle stays small', async () => {
    const result = await bundle(true);
    const [output] = Object.values(result.metafile.outputs);
    const locales = Object.entries(output!.inputs).filter(([path, use]) => use.bytesInOutput > 0 && /zod\/.*\/locales\/(?!en\.)/.test(path));
    expect(locales.map(([path]) => path)).toEqual([]);
    // Importing zod as `{ z }` (one object holding every schema and locale) made this about 511 KB.
    expect(result.outputFiles[0]!.contents.length).toBeLessThan(250_000);
  });
});
