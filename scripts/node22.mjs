#!/usr/bin/env node
// A Node 22 (or newer) binary for the packages whose dependencies need it
// (the AI SDK 7: @taskwire/ai-sdk and its example), while the rest of the
// workspace runs on Node 20. Under Node 22 or newer: this Node. Otherwise
// TASKWIRE_NODE22 when set, else the official binary from the npm registry
// (the `node-<platform>-<arch>` package, major 22), unpacked once into
// .cache/node22/. Run as a script, prints the binary's path.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Node major the AI SDK 7 needs. */
export const NODE_MAJOR = 22;
const root = fileURLToPath(new URL('..', import.meta.url));

/** True when this process runs on Node {@link NODE_MAJOR} or newer. */
export function isNode22() {
  return Number(process.versions.node.split('.')[0]) >= NODE_MAJOR;
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The path of a Node 22+ binary; installs it from npm into .cache/node22 the first time. */
export function node22() {
  if (isNode22()) return process.execPath;
  if (process.env.TASKWIRE_NODE22) return process.env.TASKWIRE_NODE22;
  const home = join(root, '.cache', 'node22');
  const binary = join(home, 'package', 'bin', 'node');
  if (existsSync(binary)) return binary;
  const name = `node-${process.platform}-${process.arch}@${NODE_MAJOR}`;
  process.stderr.write(`Installing Node ${NODE_MAJOR} from npm (${name}) into .cache/node22…\n`);
  const staging = join(root, '.cache', `node22-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  run('npm', ['pack', name, '--silent'], staging);
  const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${name} left no tarball`);
  run('tar', ['-xzf', tarball], staging);
  rmSync(join(staging, tarball));
  rmSync(home, { recursive: true, force: true });
  renameSync(staging, home);
  return binary;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.stdout.write(`${node22()}\n`);
