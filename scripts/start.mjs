#!/usr/bin/env node
// `npm start`: the reference agent with plain `node`, in this process.
// Installs the workspace's dependencies when they are missing (pnpm, as a
// child that exits), builds examples/reference-agent/dist when it is missing
// or older than one of the files it was built from (a child that exits),
// then imports the built agent: npm, its shell and this one node process are
// all that runs. Arguments go to the agent (`npm start -- --port 8080`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installIfNeeded, root } from './workspace.mjs';

const agentDir = resolve(root, 'examples/reference-agent');
const dist = resolve(agentDir, 'dist');
const main = resolve(dist, 'main.js');

/** True when the build is missing, or a file it was made from (or the installed dependencies) changed since. */
function stale() {
  const built = statSync(main, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(resolve(dist, 'build-inputs.json'), 'utf8')).inputs;
  } catch {
    return true;
  }
  for (const input of [...inputs, '../../node_modules/.modules.yaml']) {
    const changed = statSync(resolve(agentDir, input), { throwIfNoEntry: false })?.mtimeMs;
    if (changed === undefined || changed > built) return true;
  }
  return false;
}

installIfNeeded();
if (stale()) {
  process.stdout.write('Building the reference agent (examples/reference-agent/dist)…\n');
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/reference-agent/src/build.ts'], { cwd: root, stdio: 'inherit' });
  if (r.signal) process.kill(process.pid, r.signal);
  if (r.status !== 0 || !existsSync(main)) process.exit(r.status || 1);
}
process.setSourceMapsEnabled(true);
// As src/grpc-verbosity.ts does for the sources: in the bundle, @grpc/grpc-js
// (an import left to Node) loads before any bundled code runs.
process.env.GRPC_VERBOSITY ??= 'NONE';
await import(pathToFileURL(main).href);
