#!/usr/bin/env node
// The `taskwire-postgres` command: migrate | status (see cli-main.ts).
import { runCli } from './cli-main.js';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then((code) => {
  process.exitCode = code;
});
