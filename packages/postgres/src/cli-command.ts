import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The root folder of a Taskwire clone at `dir` or above it (its package.json has the `taskwire-postgres` script), if any. */
function cloneRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    const manifest = join(at, 'package.json');
    if (existsSync(manifest)) {
      try {
        const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; scripts?: Record<string, string> };
        if (pkg.name === 'taskwire' && pkg.scripts?.['taskwire-postgres']) return at;
      } catch {
        // not JSON: not the clone's root; look further up
      }
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * How to run the `taskwire-postgres` command from `cwd` (by default the
 * process's): `npm run taskwire-postgres --` inside a clone of the Taskwire
 * repository (it builds the package first when needed), else `npx
 * taskwire-postgres` (the command of the installed `@taskwire/postgres`).
 * Messages that tell the user to run the command use it.
 */
export function cliCommand(cwd: string = process.cwd()): string {
  return cloneRoot(cwd) === undefined ? 'npx taskwire-postgres' : 'npm run taskwire-postgres --';
}
