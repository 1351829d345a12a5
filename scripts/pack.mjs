#!/usr/bin/env node
// `npm run pack [-- [--out DIR] [PACKAGE ...]]`: before the packages are on
// npm, makes them installable into any project. Installs the workspace when
// needed, packs publishable packages with pnpm (its prepack builds a missing
// or stale dist/, and workspace: ranges become the packages' versions) into
// one folder (`packed/` at the root, or DIR), then prints `npm install`
// lines of the tarballs' paths:
// - with PACKAGEs (`core server-http client`, or `@taskwire/core ...`): packs
//   those and the Taskwire packages they depend on, and prints the one line
//   that installs exactly them;
// - without: packs every package and prints one line per package (it and
//   the Taskwire packages it needs), then the line that installs them all.
// A package's tarball must be installed with the tarballs of the Taskwire
// packages it depends on, in one command: npm finds them there, not on npm.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { withBuildLock } from './build-lock.mjs';
import { publishablePackages, tarballName, withTaskwireDependencies } from './publishable.mjs';
import { installIfNeeded, pnpm, root } from './workspace.mjs';

const args = process.argv.slice(2);
let outArg;
const wanted = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out') outArg = args[++i];
  else if (args[i].startsWith('--out=')) outArg = args[i].slice('--out='.length);
  else wanted.push(args[i]);
}
const all = publishablePackages(root);
let packages;
try {
  packages = wanted.length === 0 ? all : withTaskwireDependencies(all, wanted);
} catch (error) {
  process.stderr.write(`npm run pack: ${error.message}\n`);
  process.exit(2);
}
const out = outArg ? resolve(process.env.INIT_CWD ?? process.cwd(), outArg) : join(root, 'packed');

installIfNeeded();
mkdirSync(out, { recursive: true });
for (const old of readdirSync(out).filter((f) => f.startsWith('taskwire-') && f.endsWith('.tgz'))) rmSync(join(out, old));
process.stdout.write(`Packing ${packages.map((p) => p.name).join(', ')} (building those whose build is missing or stale: about a minute each the first time)…\n`);
// Under the build lock: a build running meanwhile (npm test's) would empty the dist/ this one packs.
withBuildLock(root, `npm run pack (${packages.map((p) => p.name).join(', ')})`, () =>
  pnpm(['-r', '--reporter=append-only', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', out]),
);

const quote = (path) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`);
const line = (some) => `npm install ${some.map((p) => quote(resolve(out, tarballName(p.name, p.version)))).join(' ')}`;
const folder = isAbsolute(out) ? out : resolve(out);
if (wanted.length > 0) {
  process.stdout.write(`\n${packages.map((p) => p.name).join(', ')} packed into ${folder}. Install them together (one command, so that they find each other) in your project:\n\n${line(packages)}\n`);
} else {
  process.stdout.write(
    `\n${packages.length} packages packed into ${folder}. In your project, install a package with the Taskwire packages it needs (one command, so that they find each other):\n\n` +
      packages.map((p) => `# ${p.name}\n${line(withTaskwireDependencies(all, [p.name]))}\n`).join('') +
      `\nSeveral at once: \`npm run pack -- core server-http client\` prints their one line. All of them:\n\n${line(packages)}\n`,
  );
}
