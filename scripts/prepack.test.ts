import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishablePackages } from './publishable.mjs';

// scripts/prepack.mjs, the `prepack` of every publishable package, run by
// the real `npm pack` and `pnpm pack` on small packages in a temporary folder
// that declare their build and exports the way ours do.
const root = join(import.meta.dirname, '..');
const prepack = join(root, 'scripts', 'prepack.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'taskwire-prepack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package whose `build` runs `build` (node code), exporting ./dist/index.js with its types. */
function fixture(name: string, build: string): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'build.cjs'), build);
  const pkg = {
    name: `@fixture/${name}`,
    version: '1.0.0',
    type: 'module',
    exports: { '.': { '@taskwire/source': './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } },
    files: ['dist'],
    scripts: { build: 'node build.cjs', prepack: `node ${JSON.stringify(prepack)}` },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
}

const WRITES_DIST = `const fs = require('node:fs'); fs.mkdirSync('dist', { recursive: true }); fs.writeFileSync('dist/index.js', 'export const x = 1;\\n'); fs.writeFileSync('dist/index.d.ts', 'export declare const x: 1;\\n');`;

function pack(command: string, args: string[], dir: string) {
  const out = join(dir, 'out');
  mkdirSync(out, { recursive: true });
  const result = spawnSync(command, [...args, '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  const files = tarballs.length === 1 ? spawnSync('tar', ['-tzf', join(out, tarballs[0]!)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean) : [];
  return { status: result.status, output: `${result.stdout}${result.stderr}`, tarballs, files };
}

describe('prepack: no tarball without its build', () => {
  it('npm pack of an unbuilt package builds it first, and the tarball holds dist/', () => {
    const dir = fixture('unbuilt-npm', WRITES_DIST);
    const packed = pack('npm', ['pack'], dir);
    expect(packed.status, packed.output).toBe(0);
    expect(packed.output).toContain('dist/ is missing or older than src/; building it before packing');
    expect(packed.files).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts']));
  });

  it('pnpm pack of an unbuilt package builds it first, and the tarball holds dist/', () => {
    const dir = fixture('unbuilt-pnpm', WRITES_DIST);
    const packed = pack('npx', ['-y', 'pnpm@10.34.9', 'pack'], dir);
    expect(packed.status, packed.output).toBe(0);
    expect(packed.files).toEqual(expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts']));
  }, 60_000);

  it('a build that leaves an export missing stops the pack with a message naming the file, and writes no tarball', () => {
    const dir = fixture('half-built', `const fs = require('node:fs'); fs.mkdirSync('dist', { recursive: true }); fs.writeFileSync('dist/index.js', '');`);
    const packed = pack('npm', ['pack'], dir);
    expect(packed.status).not.toBe(0);
    expect(packed.output).toContain('@fixture/half-built: refusing to pack: its build succeeded but did not write dist/index.d.ts');
    expect(packed.tarballs).toEqual([]);
  });

  it('a failing build stops the pack, and writes no tarball', () => {
    const dir = fixture('broken-build', 'process.exit(3);');
    const packed = pack('npm', ['pack'], dir);
    expect(packed.status).not.toBe(0);
    expect(packed.output).toContain('@fixture/broken-build: the build failed (exit 3); no tarball written');
    expect(packed.tarballs).toEqual([]);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });

  it('every publishable package of the workspace runs it as its prepack', () => {
    const packages = publishablePackages(root);
    expect(packages.map((p) => p.name)).toContain('@taskwire/core');
    for (const { dir, name } of packages) {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(pkg.scripts?.prepack, name).toBe('node ../../scripts/prepack.mjs');
    }
  });
});
