import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the CLI hands a companion package's command function (`runInspect`, `runMcp`): its output, environment and Ctrl-C. */
export interface CompanionIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

/** The environment variable naming a directory to load companion packages from (its `node_modules`), besides the CLI's own. */
export const COMPANION_DIR_VARIABLE = 'TASKWIRE_COMPANION_DIR';

/**
 * Loads an optional companion package (one that depends on the client, so
 * the client never imports it statically) at run time: from where this CLI
 * is installed (its sibling in the same node_modules, local or global), else
 * from the directory `from` the user named (`TASKWIRE_COMPANION_DIR`),
 * resolved as from a file in it. Never from the current directory's
 * project: a repository you run the CLI in cannot plant code for it to run.
 * Resolves undefined when it is in neither place.
 */
export async function loadOptionalPackage<T>(name: string, from?: string): Promise<T | undefined> {
  try {
    return (await import(name)) as T;
  } catch {
    // Not beside the CLI: try the directory the user named, if any.
  }
  if (!from) return undefined;
  try {
    const resolved = createRequire(join(from, 'package.json')).resolve(name);
    return (await import(pathToFileURL(resolved).href)) as T;
  } catch {
    return undefined;
  }
}
