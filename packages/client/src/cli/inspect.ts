import type { CompanionIo } from './optional-package.js';
import { loadOptionalPackage } from './optional-package.js';

/** What `taskwire inspect` needs of `@taskwire/inspector` (its `runInspect`). */
export interface InspectorModule {
  runInspect(argv: readonly string[], io: CompanionIo): Promise<number>;
}

/** The package `taskwire inspect` loads; named in a variable so no bundler or type-checker ties the client to it. */
const INSPECTOR = '@taskwire/inspector';

/** How to get the inspector, for the message `taskwire inspect` prints without it. */
export const INSPECTOR_MISSING =
  'taskwire inspect needs @taskwire/inspector, which is not installed; install it beside @taskwire/client ' +
  '("npm install @taskwire/inspector", or globally "npm install -g @taskwire/inspector", which also gives the taskwire-inspect command). ' +
  'Before the first release is on npm, from a clone of the Taskwire repository: "npm run taskwire -- inspect <agent-url>", ' +
  'or "npm run pack -- client inspector" for the install line of both packages';

/**
 * Loads `@taskwire/inspector` at run time: from where this CLI is installed
 * (its sibling in the same node_modules, local or global), else from the
 * directory `from` the user named (`TASKWIRE_COMPANION_DIR`); never from
 * the current directory's project. The client never imports it statically
 * (the inspector depends on the client, not the other way). Resolves
 * undefined when it is not installed there.
 */
export function loadInspector(from?: string): Promise<InspectorModule | undefined> {
  return loadOptionalPackage<InspectorModule>(INSPECTOR, from);
}
