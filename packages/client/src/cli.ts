#!/usr/bin/env node
// The `taskwire` command (Node only; not part of the package's main entry).
import { homedir } from 'node:os';
import { main } from './cli/main.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  home: homedir(),
  signal: controller.signal,
}).then((code) => {
  process.exitCode = code;
});
