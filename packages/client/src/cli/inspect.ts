import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What `taskwire inspect` needs of `@taskwire/inspector` (its `runInspect`). */
export interface InspectorModule {
  runInspect(
    argv: readonly string[],
    io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown }; env: Readonly<Record<string, string | undefined>>; signal?: AbortSignal },
  ): Promise<number>;
}

/** The package `taskwire inspect` loads; named in a variable so no bundler or type-checker ties the client to it. */
const INSPECTOR = '@taskwire/inspector';

/** How to get the inspector, for the message `taskwire inspect` prints without it. */
export const INSPECTOR_MISSING =
  'taskwire inspect needs @taskwire/inspector, which is not installed; install it beside @taskwire/client ' +
  '("npm install @taskwire/inspector", or globally "npm install -g @taskwire/inspector", which also gives the taskwire-inspect command)';

/**
 * Loads `@taskwire/inspector` at run time: from where this CLI is installed
 * (its sibling in the same node_modules, local or global), else from the
 * current directory's project. The client never imports it statically (the
 * inspector depends on the client, not the other way). Resolves undefined
 * when it is not installed.
 */
export async function loadInspector(cwd: string = process.cwd()): Promise<InspectorModule | undefined> {
  try {
    return (await import(INSPECTOR)) as InspectorModule;
  } catch {
    // Not beside the CLI: try the project the command runs in.
  }
  try {
    const resolved = createRequire(join(cwd, 'package.json')).resolve(INSPECTOR);
    return (await import(pathToFileURL(resolved).href)) as InspectorModule;
  } catch {
    return undefined;
  }
}
