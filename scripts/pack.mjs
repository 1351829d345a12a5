#!/usr/bin/env node
// `npm run pack`: before the packages are on npm, makes them installable
// into any project. Installs the workspace when needed, packs every
// publishable package with pnpm (its prepack builds a missing or stale
// dist/, and workspace: ranges become the packages' versions) into one
// folder (`packed/` at the root, or the folder given as the first argument),
// then prints the one `npm install` line that installs them together.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { publishablePackages, tarballName } from './publishable.mjs';
import { installIfNeeded, pnpm, root } from './workspace.mjs';

const out = process.argv[2] ? resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2]) : join(root, 'packed');
const packages = publishablePackages(root);

installIfNeeded();
mkdirSync(out, { recursive: true });
for (const old of readdirSync(out).filter((f) => f.startsWith('taskwire-') && f.endsWith('.tgz'))) rmSync(join(out, old));
pnpm(['-r', '--reporter=append-only', ...packages.flatMap((p) => ['--filter', p.name]), 'pack', '--pack-destination', out]);

const quote = (path) => (/^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`);
const tarballs = packages.map((p) => join(out, tarballName(p.name, p.version)));
process.stdout.write(
  `\n${packages.length} packages packed into ${out}. Install them together (one command, so that they find each other) in your project:\n\n` +
    `npm install ${tarballs.map((t) => quote(isAbsolute(t) ? t : resolve(t))).join(' ')}\n`,
);
