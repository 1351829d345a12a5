#!/usr/bin/env node
// `npm run taskwire -- <args>` and `npm run taskwire-postgres -- <args>`:
// the commands of @taskwire/client and @taskwire/postgres from a clone.
// Installs the workspace when needed. When the packages the command needs
// are built and their builds are fresh, runs the built command in this
// process. Otherwise it builds nothing: it runs the command from its
// TypeScript sources (tsx, the `@taskwire/source` export condition, as the
// tests do), which takes a second or two, not the minute a build takes.
// `taskwire inspect` and `taskwire mcp` load @taskwire/inspector and
// @taskwire/mcp as installed: those (and what they need) are built first
// when their build is missing or stale.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withBuildLock } from './build-lock.mjs';
import { buildIsStale, publishablePackages, withTaskwireDependencies } from './publishable.mjs';
import { installIfNeeded, pnpm, root } from './workspace.mjs';

const commands = {
  taskwire: { pkg: '@taskwire/client', bin: 'packages/client/bin/taskwire.js', src: 'packages/client/src/cli.ts' },
  'taskwire-postgres': { pkg: '@taskwire/postgres', bin: 'packages/postgres/bin/taskwire-postgres.js', src: 'packages/postgres/src/cli.ts' },
};
/** Subcommands of `taskwire` that load another package as installed (built). */
const loadsBuilt = { inspect: '@taskwire/inspector', mcp: '@taskwire/mcp' };

const [, , name, ...args] = process.argv;
if (!(name in commands)) {
  process.stderr.write(`usage: taskwire.mjs ${Object.keys(commands).join('|')} [args]\n`);
  process.exit(2);
}
const command = commands[name];
installIfNeeded();

const all = publishablePackages(root);
const subcommand = name === 'taskwire' ? loadsBuilt[args[0]] : undefined;
if (subcommand !== undefined) {
  const stale = withTaskwireDependencies(all, [command.pkg, subcommand, '@taskwire/server-grpc']).filter((p) => buildIsStale(p.dir));
  if (stale.length > 0) {
    process.stderr.write(`Building ${stale.map((p) => p.name).join(', ')} (their build is missing or older than their sources; about a minute)…\n`);
    withBuildLock(root, `npm run ${name} (building ${stale.map((p) => p.name).join(', ')})`, () =>
      pnpm(['--reporter=silent', ...stale.flatMap((p) => ['--filter', p.name]), 'build'], { toStderr: true }),
    );
  }
}
// The command's package, what it depends on, and the gRPC transport it offers when present.
const needed = withTaskwireDependencies(all, name === 'taskwire' ? [command.pkg, '@taskwire/server-grpc'] : [command.pkg]);
if (needed.every((p) => !buildIsStale(p.dir))) {
  // The command reads its arguments from process.argv after the script path, as when installed.
  process.argv = [process.argv[0], join(root, command.bin), ...args];
  await import(pathToFileURL(join(root, command.bin)).href);
} else {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), '--conditions=@taskwire/source', join(root, command.src), ...args], { stdio: 'inherit' });
  // Ctrl+C reaches the child too (same process group): it decides when to stop, this process follows.
  process.on('SIGINT', () => {});
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.once('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
}
