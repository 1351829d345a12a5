#!/usr/bin/env node
// Runs a root task after making sure the workspace's dependencies are installed.
// Works from plain `npm` on a machine with only Node 20 and npm: pnpm is taken
// from npx at the pinned version when it is not the current package manager.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const PNPM = 'pnpm@10.34.9';
const root = new URL('..', import.meta.url).pathname;
const viaPnpm = (process.env.npm_execpath ?? '').includes('pnpm');

function pnpm(args) {
  const [cmd, full] = viaPnpm
    ? [process.execPath, [process.env.npm_execpath, ...args]]
    : ['npx', ['-y', PNPM, ...args]];
  const r = spawnSync(cmd, full, { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

function needsInstall() {
  const marker = `${root}node_modules/.modules.yaml`;
  if (!existsSync(marker)) return true;
  return statSync(`${root}pnpm-lock.yaml`).mtimeMs > statSync(marker).mtimeMs;
}

const tasks = {
  test: [['exec', 'vitest', 'run', ...process.argv.slice(3)]],
  start: [['--filter', '@taskwire/reference-agent', 'start', ...process.argv.slice(3)]],
  // Benchmarks measure what users install: the built packages (tsup), not the TypeScript sources.
  bench: [['-r', '--filter', './packages/**', 'build'], ['--filter', '@taskwire/bench', 'bench', ...process.argv.slice(3)]],
  taskwire: [['exec', 'tsx', '--conditions=source', 'packages/client/src/cli.ts', ...process.argv.slice(3)]],
};
const task = tasks[process.argv[2]];
if (!task) {
  process.stderr.write(`usage: with-deps.mjs ${Object.keys(tasks).join('|')} [args]\n`);
  process.exit(2);
}
if (needsInstall()) pnpm(['install', ...(process.env.CI ? ['--frozen-lockfile'] : [])]);
for (const args of task) pnpm(args);
