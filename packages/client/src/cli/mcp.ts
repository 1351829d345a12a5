import type { CompanionIo } from './optional-package.js';
import { loadOptionalPackage } from './optional-package.js';

/** What `taskwire mcp` needs of `@taskwire/mcp` (its `runMcp`). */
export interface McpModule {
  runMcp(argv: readonly string[], io: CompanionIo): Promise<number>;
}

/** The package `taskwire mcp` loads; named in a variable so no bundler or type-checker ties the client to it. */
const MCP = '@taskwire/mcp';

/** How to get the MCP bridge, for the message `taskwire mcp` prints without it. */
export const MCP_MISSING =
  'taskwire mcp needs @taskwire/mcp, which is not installed; install it beside @taskwire/client ' +
  '("npm install @taskwire/mcp", or globally "npm install -g @taskwire/mcp", which also gives the taskwire-mcp command; ' +
  'a project of yours elsewhere: TASKWIRE_COMPANION_DIR=<its directory>; ' +
  'or run it without installing: "npx -y @taskwire/mcp <agent-url>"). Before the first release is on npm, from a clone of the ' +
  'Taskwire repository: "npm run taskwire -- mcp <agent-url>", or "npm run pack -- client mcp" for the install line of both packages';

/**
 * Loads `@taskwire/mcp` at run time, where it is installed beside this CLI
 * or in the directory `from` the user named (`TASKWIRE_COMPANION_DIR`),
 * never from the current directory's project (the client never imports it
 * statically: it depends on the client). Resolves undefined when it is not
 * installed there.
 */
export function loadMcp(from?: string): Promise<McpModule | undefined> {
  return loadOptionalPackage<McpModule>(MCP, from);
}
