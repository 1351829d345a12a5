#!/usr/bin/env node
// Runs a root task after making sure the workspace's dependencies are installed.
// `test` first provides what the suite needs from the machine (scripts/provision.mjs:
// browser, nginx, Node 22, openssl, PgBouncer, and a throwaway PostgreSQL of its
// own, stopped when the run ends or is interrupted, unless TASKWIRE_TEST_DATABASE_URL
// names one), then runs vitest; what could not be provided is listed at the end,
// and the run says it was partial. In CI (CI=true) a missing need fails the run first.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { partialRunReport, planProvisioning, provide, thisMachine } from './provision.mjs';
import { installIfNeeded, pnpm, pnpmCommand, root } from './workspace.mjs';

const tasks = {
  test: [['exec', 'vitest', 'run', ...process.argv.slice(3)]],
  // Benchmarks measure what users install: the built packages (tsup), not the TypeScript sources.
  bench: [['-r', '--filter', './packages/**', 'build'], ['--filter', '@taskwire/bench', 'bench', ...process.argv.slice(3)]],
};
const name = process.argv[2];
const task = tasks[name];
if (!task) {
  process.stderr.write(`usage: with-deps.mjs ${Object.keys(tasks).join('|')} [args]\n`);
  process.exit(2);
}
installIfNeeded();
if (name !== 'test') {
  for (const args of task) pnpm(args);
} else {
  // Signals are taken before anything starts, so an interrupted run stops what it started: vitest
  // (which has the signal too, from a terminal) and, once it is gone, this run's PostgreSQL.
  let tests;
  let stop = () => undefined;
  const exitCode = (signal) => 128 + (constants.signals[signal] ?? 0);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (tests && tests.exitCode === null) tests.kill(signal);
      else process.exit(exitCode(signal));
    });
  }
  process.on('exit', () => stop());
  const provided = provide(planProvisioning(thisMachine(root)), root);
  const { missing } = provided;
  stop = provided.stop;
  if (missing.length > 0 && process.env.CI === 'true') {
    process.stderr.write(`${partialRunReport(missing)}In CI every need must be provided: not running the tests.\n`);
    process.exit(1);
  }
  const [command, args] = pnpmCommand(task[0]);
  tests = spawn(command, args, { cwd: root, stdio: 'inherit', env: process.env });
  tests.on('exit', (code, signal) => {
    stop();
    process.stdout.write(partialRunReport(missing));
    process.exit(code ?? exitCode(signal));
  });
}
