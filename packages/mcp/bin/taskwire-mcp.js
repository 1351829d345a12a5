#!/usr/bin/env node
// The `taskwire-mcp` command: runs the built CLI. This launcher is committed
// (the build is not), so installing the workspace links the command before any build.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('taskwire-mcp: the package is not built; build it with "npx -y pnpm@10.34.9 --filter @taskwire/mcp build"\n');
  process.exit(1);
}
await import(cli.href);
