#!/usr/bin/env node
// The `taskwire-mcp` command (Node only).
import { stripControls } from '@taskwire/client';
import { runMcp } from './mcp-command.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());

runMcp(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`taskwire-mcp: ${stripControls((error as Error).message)}\n`);
    process.exit(1);
  },
);
