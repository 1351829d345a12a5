/**
 * Runs every benchmark one after the other (`npm run bench` from the repo
 * root, or `pnpm --filter @taskwire/bench bench`), each in its own process
 * so they do not share an event loop or a heap, each with its defaults.
 * They load the built packages (`dist/`, what npm users get); the root
 * `npm run bench` builds them first.
 */
import { spawnSync } from 'node:child_process';

const BENCHES = ['core-bench', 'http-bench', 'grpc-bench', 'ws-bench', 'client-wait-bench', 'push-bench', 'auth-bench'];
let failed = 0;
for (const name of BENCHES) {
  console.log(`\n=== ${name}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', `src/${name}.ts`], {
    stdio: 'inherit',
  });
  if (run.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
