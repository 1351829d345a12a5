#!/usr/bin/env node
// `npm run taskwire -- <args>` and `npm run taskwire-postgres -- <args>`:
// the commands of @taskwire/client and @taskwire/postgres from a clone, as
// built. Installs the workspace and builds the packages whose build is
// missing or older than their sources first (the first call only: it takes
// a minute), then runs the built command in this process, so that later
// calls start at once.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsStale, publishablePackages } from './publishable.mjs';
import { installIfNeeded, pnpm, root } from './workspace.mjs';

const commands = { taskwire: 'packages/client/bin/taskwire.js', 'taskwire-postgres': 'packages/postgres/bin/taskwire-postgres.js' };
const [, , name, ...args] = process.argv;
if (!(name in commands)) {
  process.stderr.write(`usage: taskwire.mjs ${Object.keys(commands).join('|')} [args]\n`);
  process.exit(2);
}
installIfNeeded();
const stale = publishablePackages(root).filter((p) => buildIsStale(p.dir));
if (stale.length > 0) {
  process.stderr.write(`Building ${stale.map((p) => p.name).join(', ')} (their build is missing or older than their sources)…\n`);
  pnpm(['--reporter=silent', ...stale.flatMap((p) => ['--filter', p.name]), 'build'], { toStderr: true });
}
// The command reads its arguments from process.argv after the script path, as when installed.
process.argv = [process.argv[0], join(root, commands[name]), ...args];
await import(pathToFileURL(join(root, commands[name])).href);
