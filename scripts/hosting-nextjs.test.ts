import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { builtApp } from './hosting/framework-app.js';
import { probeHost } from './hosting/probe.js';
import { serve, type Served } from './hosting/serve.js';
import { freePort } from './release/registry.js';

// docs/hosting/nextjs.md, run: its files laid out as a Next.js 16 App Router
// app with Next.js installed from npm, built for production (`next build`,
// which type-checks them too) and served (`next start`), then checked as
// every hosting page is (hosting/probe.ts). The install and the build are
// kept in .cache/hosting between runs (in node_modules, Turbopack would take
// the app for a dependency); the build runs again only when the page's
// files, the versions or the packed Taskwire packages changed.
const root = join(import.meta.dirname, '..');
const NEXT = 'node_modules/next/dist/bin/next';
const ENV = { NEXT_TELEMETRY_DISABLED: '1' };

let server: Served | undefined;
let base = '';

beforeAll(async () => {
  const dir = builtApp(root, 'nextjs', {
    doc: 'docs/hosting/nextjs.md',
    dependencies: { next: '16.5.0', react: '19.3.1', 'react-dom': '19.3.1', typescript: '5.9.3', '@types/node': '20.19.43', '@types/react': '19.3.3' },
    taskwire: ['@taskwire/server-http'],
    output: '.next',
    build: [NEXT, 'build'],
    env: ENV,
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await serve(process.execPath, [join(dir, NEXT), 'start', '-H', '127.0.0.1', '-p', String(port)], dir, { ...ENV, PUBLIC_URL: base }, 'Ready');
}, 600_000);
afterAll(async () => {
  await server?.stop();
});

describe('docs/hosting/nextjs.md on a Next.js 16 production build (next build, next start)', () => {
  it('serves the card at the root, answers, streams unbuffered, and a client abort releases the stream', async () => {
    await probeHost(base, base);
  }, 120_000);
});
