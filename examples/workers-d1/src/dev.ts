// `npm start -- [--port 8787] [--state DIR]`: the Worker of src/worker.ts in
// workerd (miniflare), with its D1 database in .wrangler/state (kept across
// restarts), on Node 22 or later.
import { parseArgs } from 'node:util';
import { bundleWorker, DEFAULT_STATE, startLocalWorker } from './local-worker.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8787' }, state: { type: 'string', default: DEFAULT_STATE } } });
const mf = await startLocalWorker(await bundleWorker(), Number(values.port), values.state);
const url = `http://127.0.0.1:${values.port}`;
console.log(`Workers agent at ${url} (tasks in D1, kept in ${values.state})`);
console.log(`Try:\n  npm run taskwire -- stream ${url} "slow 5"`);
console.log('Press Ctrl+C to stop.');
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void mf.dispose().then(() => process.exit(0)));
