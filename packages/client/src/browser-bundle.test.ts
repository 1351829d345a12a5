import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

describe('the main entry in a browser', () => {
  it('bundles with esbuild for platform browser, with no Node built-ins and no Node-only transports', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      conditions: ['source'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((path) => /(^|\/)node:|node_modules\/(ws|@grpc|@trpc)\//.test(path))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/["']node:[a-z_]+["']/);
    expect(code).toContain('.well-known/agent-card.json');
  });
});
