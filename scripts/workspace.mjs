// What the root scripts share: the workspace root, pnpm at the pinned
// version, and installing the workspace's dependencies when they are missing
// or older than the lockfile. Works from plain `npm` on a machine with only
// Node 20 and npm: pnpm is taken from npx when it is not the package manager
// running the script.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The pnpm this repository is pinned to (`packageManager` in package.json). */
export const PNPM = 'pnpm@10.34.9';
/** The repository root, ending with a slash. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The command and arguments that run pnpm with `args`: the pnpm running
 * this script when there is one (`npm_execpath`), else pnpm at {@link PNPM}
 * through npx.
 */
export function pnpmCommand(args) {
  const viaPnpm = (process.env.npm_execpath ?? '').includes('pnpm');
  return viaPnpm ? [process.execPath, [process.env.npm_execpath, ...args]] : ['npx', ['-y', PNPM, ...args]];
}

/**
 * Runs pnpm with `args` in the root, output to this terminal (its standard
 * output to our standard error when `toStderr`, so that a command's own
 * output stays clean); exits with pnpm's code when it fails.
 */
export function pnpm(args, { toStderr = false } = {}) {
  const [cmd, full] = pnpmCommand(args);
  const r = spawnSync(cmd, full, { cwd: root, stdio: ['inherit', toStderr ? 2 : 'inherit', 'inherit'], env: process.env });
  if (r.signal) process.kill(process.pid, r.signal);
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** True when `node_modules` is missing or older than `pnpm-lock.yaml`. */
export function needsInstall() {
  const marker = `${root}node_modules/.modules.yaml`;
  if (!existsSync(marker)) return true;
  return statSync(`${root}pnpm-lock.yaml`).mtimeMs > statSync(marker).mtimeMs;
}

/**
 * Installs the workspace's dependencies when {@link needsInstall} says so
 * (frozen lockfile under CI), saying so in one line: pnpm itself reports
 * only warnings and errors.
 */
export function installIfNeeded() {
  if (!needsInstall()) return;
  process.stdout.write(`Installing the workspace's dependencies (${PNPM})…\n`);
  pnpm(['install', '--loglevel=warn', ...(process.env.CI ? ['--frozen-lockfile'] : [])]);
}
