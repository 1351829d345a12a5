import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * Starts `file` (TypeScript, this repository's sources: tsx and the
 * `@taskwire/source` condition) with `args` as a real node process, with
 * exactly `env` as its environment, stdin closed and stdout and stderr piped.
 */
export function spawnSource(file: string, args: readonly string[], env: NodeJS.ProcessEnv): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', file, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}
