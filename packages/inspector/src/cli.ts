#!/usr/bin/env node
// The `taskwire-inspect` command (`taskwire inspect` runs the same): Node only.
import { runInspect } from './inspect-command.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());

runInspect(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal }).then((code) => {
  process.exitCode = code;
});
