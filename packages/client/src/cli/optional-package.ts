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

/**
 * Loads an optional companion package (one that depends on the client, so
 * the client never imports it statically) at run time: from where this CLI
 * is installed (its sibling in the same node_modules, local or global), else
 * from the project of `cwd`. Resolves undefined when it is installed in
 * neither place.
 */
export async function loadOptionalPackage<T>(name: string, cwd: string = process.cwd()): Promise<T | undefined> {
  try {
    return (await import(name)) as T;
  } catch {
    // Not beside the CLI: try the project the command runs in.
  }
  try {
    const resolved = createRequire(join(cwd, 'package.json')).resolve(name);
    return (await import(pathToFileURL(resolved).href)) as T;
  } catch {
    return undefined;
  }
}
