#!/usr/bin/env node
// Checks every publishable package (packages/* whose package.json is not
// "private": true) as npm would publish it, after the build:
//   - @arethetypeswrong/cli --pack: every entry point resolves, with its
//     types, under TypeScript's node10, node16 (CJS and ESM) and bundler
//     resolution;
//   - publint: package.json, exports and files (any message fails,
//     suggestions included);
//   - the tarball: LICENSE, README.md and dist/ in it, no sources, and the
//     metadata npm shows (repository with its directory, homepage, bugs,
//     keywords, engines), README links that work on npmjs.com (absolute).
// Prints each package's packed and unpacked size. Exits 1 on any problem.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { publishablePackages } from './publishable.mjs';
import { root } from './workspace.mjs';

const require = createRequire(import.meta.url);
const attwPackage = require.resolve('@arethetypeswrong/cli/package.json');
const attw = join(attwPackage, '..', JSON.parse(readFileSync(attwPackage, 'utf8')).bin.attw);

/** Problems with what the tarball holds and the metadata npm shows. */
function tarballProblems(dir, pkg, files) {
  const problems = [];
  const relative = dir.slice(root.length).replace(/\\/g, '/');
  for (const required of ['LICENSE', 'README.md', 'package.json']) if (!files.includes(required)) problems.push(`the tarball has no ${required}`);
  if (!files.some((f) => f.startsWith('dist/'))) problems.push('the tarball has no dist/ (build first)');
  const sources = files.filter((f) => f.startsWith('src/'));
  if (sources.length > 0) problems.push(`the tarball carries sources (${sources.length} files under src/)`);
  if (!pkg.repository?.url || pkg.repository.directory !== relative) problems.push(`"repository" needs a url and "directory": "${relative}"`);
  if (!pkg.homepage) problems.push('"homepage" is missing');
  if (!pkg.bugs?.url) problems.push('"bugs.url" is missing');
  if (!Array.isArray(pkg.keywords) || pkg.keywords.length === 0) problems.push('"keywords" is missing');
  if (!pkg.engines?.node) problems.push('"engines.node" is missing');
  if (!pkg.license) problems.push('"license" is missing');
  const readme = existsSync(join(dir, 'README.md')) ? readFileSync(join(dir, 'README.md'), 'utf8') : '';
  const relativeLinks = [...readme.matchAll(/\]\((?!https?:\/\/|#|mailto:)([^)]+)\)/g)].map((m) => m[1]);
  if (relativeLinks.length > 0) problems.push(`README links that break on npmjs.com (make them absolute): ${relativeLinks.join(', ')}`);
  return problems;
}

let failed = false;
const sizes = [];
for (const { dir, pkg } of publishablePackages(root)) {
  console.log(`\n== ${pkg.name}`);
  const types = spawnSync(process.execPath, [attw, '--pack', dir, '--format', 'table-flipped', '--no-emoji'], { stdio: 'inherit' });
  if (types.status !== 0) failed = true;

  const lint = await publint({ pkgDir: dir, pack: 'npm', strict: true });
  for (const message of lint.messages) console.log(`publint ${message.type}: ${formatMessage(message, lint.pkg)}`);
  if (lint.messages.length > 0) failed = true;
  else console.log('publint: no problems');

  const packed = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: dir, encoding: 'utf8', shell: process.platform === 'win32' });
  if (packed.status !== 0) {
    console.log(`npm pack failed: ${packed.stderr}`);
    failed = true;
    continue;
  }
  const [report] = JSON.parse(packed.stdout);
  const problems = tarballProblems(dir, pkg, report.files.map((f) => f.path));
  for (const problem of problems) console.log(`tarball: ${problem}`);
  if (problems.length > 0) failed = true;
  sizes.push(`${pkg.name.padEnd(24)} packed ${(report.size / 1024).toFixed(1).padStart(7)} KB   unpacked ${(report.unpackedSize / 1024).toFixed(1).padStart(8)} KB   ${report.entryCount} files`);
}
console.log(`\n${sizes.join('\n')}`);
if (failed) {
  console.log('\nPackaging problems: see above.');
  process.exit(1);
}
console.log('\nEvery publishable package: types resolve everywhere, publint finds nothing, the tarball is complete.');
