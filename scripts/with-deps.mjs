#!/usr/bin/env node
// Runs a root task after making sure the workspace's dependencies are installed.
import { installIfNeeded, pnpm } from './workspace.mjs';

const tasks = {
  test: [['exec', 'vitest', 'run', ...process.argv.slice(3)]],
  // Benchmarks measure what users install: the built packages (tsup), not the TypeScript sources.
  bench: [['-r', '--filter', './packages/**', 'build'], ['--filter', '@taskwire/bench', 'bench', ...process.argv.slice(3)]],
};
const task = tasks[process.argv[2]];
if (!task) {
  process.stderr.write(`usage: with-deps.mjs ${Object.keys(tasks).join('|')} [args]\n`);
  process.exit(2);
}
installIfNeeded();
for (const args of task) pnpm(args);
