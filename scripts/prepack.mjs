#!/usr/bin/env node
// The `prepack` script of every publishable package: npm pack, pnpm pack,
// npm publish, pnpm publish and changeset publish run it in the package's
// folder before they write a tarball. It builds the package (its own `build`
// script) when dist/ is missing or older than its sources, then checks that
// every file package.json points at is there (exports, main, module, types,
// typesVersions, and the dist/ file each bin launcher loads). When one is
// missing it exits 1 naming them, and no tarball is written.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBuildLock } from './build-lock.mjs';
import { buildIsStale } from './publishable.mjs';

const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));

/** Every file path a package.json value points at (export conditions for the workspace's sources excluded). */
function targets(value, key = '') {
  if (key === '@taskwire/source') return [];
  if (typeof value === 'string') return value.startsWith('./') && !value.includes('*') ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => targets(v));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => targets(v, k));
  return [];
}

/** The dist/ files the bin launchers load (`new URL('../dist/cli.js', import.meta.url)`), and the launchers themselves. */
function binTargets() {
  const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
  return bins.flatMap((bin) => {
    const file = join(dir, bin);
    const loads = existsSync(file) ? [...readFileSync(file, 'utf8').matchAll(/['"]\.\.\/(dist\/[\w./-]+)['"]/g)].map((m) => `./${m[1]}`) : [];
    return [bin, ...loads];
  });
}

// Under the build lock (already held when `npm run pack` runs this): a second build of this
// package meanwhile would empty its dist/ under this one.
const root = fileURLToPath(new URL('..', import.meta.url));
let built = false;
withBuildLock(root, `packing ${pkg.name}`, () => {
  if (!buildIsStale(dir)) return;
  process.stderr.write(`${pkg.name}: dist/ is missing or older than src/; building it before packing\n`);
  // The package manager that runs this script runs the build too (npm_execpath), else npm.
  const via = process.env.npm_execpath;
  const [command, args] = via && /\.c?js$/.test(via) ? [process.execPath, [via, 'run', 'build']] : ['npm', ['run', 'build']];
  const build = spawnSync(command, args, { cwd: dir, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write(`${pkg.name}: the build failed (exit ${build.status ?? build.signal}); no tarball written\n`);
    process.exit(1);
  }
  built = true;
});

const wanted = [...new Set([...targets(pkg.exports), ...targets([pkg.main, pkg.module, pkg.types]), ...targets(pkg.typesVersions), ...binTargets()].map((t) => t.replace(/^\.\//, '')))];
const missing = wanted.filter((file) => !existsSync(join(dir, file)));
if (wanted.length === 0 || missing.length > 0) {
  process.stderr.write(
    `${pkg.name}: refusing to pack: ${wanted.length === 0 ? 'package.json points at no file' : built ? `its build succeeded but did not write ${missing.join(', ')}` : `missing from dist/: ${missing.join(', ')}, though dist/ is newer than src/ (a build that does not take the build lock, such as \`pnpm build\` in another terminal, may be emptying dist/ right now)`}.\n` +
      `Build it ("npm run build" in ${dir}) and check that its build writes these files.\n`,
  );
  process.exit(1);
}
