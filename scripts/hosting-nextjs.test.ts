import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDigest, docFiles, frameworkApp } from './hosting/framework-app.js';
import { probeHost } from './hosting/probe.js';
import { serve, type Served } from './hosting/serve.js';
import { installPackages } from './readme-examples/install.js';
import { freePort } from './release/registry.js';

// docs/hosting/nextjs.md, run: its files laid out as a Next.js 16 App Router
// app with Next.js installed from npm, built for production (`next build`)
// and served (`next start`), then checked as every hosting page is
// (hosting/probe.ts). The install and the build are kept under
// .cache/hosting between runs (in node_modules, Turbopack would take the app for a dependency); the build runs again only when the
// page's files, the versions or the packed Taskwire packages changed.
const root = join(import.meta.dirname, '..');
const dir = join(root, '.cache', 'hosting', 'nextjs');
const packed = join(root, '.hosting', 'nextjs-packages');
const DEPENDENCIES = { next: '16.5.0', react: '19.3.1', 'react-dom': '19.3.1', typescript: '5.9.3', '@types/node': '20.19.43', '@types/react': '19.3.3' };
const ENV = { NEXT_TELEMETRY_DISABLED: '1' };

let server: Served | undefined;
let base = '';

beforeAll(async () => {
  installPackages(root, packed, []);
  const spec = { dependencies: DEPENDENCIES, taskwire: ['@taskwire/server-http'], files: docFiles(readFileSync(join(root, 'docs', 'hosting', 'nextjs.md'), 'utf8')), keep: ['.next'] };
  const ours = frameworkApp(dir, packed, spec);
  const next = join(dir, 'node_modules', 'next', 'dist', 'bin', 'next');
  const digest = appDigest(dir, spec, ours);
  const built = join(dir, '.next', 'taskwire-build-digest');
  if (!existsSync(built) || readFileSync(built, 'utf8') !== digest) {
    // `next build` type-checks the page's files too (it writes tsconfig.json the first time).
    const build = spawnSync(process.execPath, [next, 'build'], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...ENV }, timeout: 540_000 });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}${build.stderr}`);
    writeFileSync(built, digest);
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await serve(process.execPath, [next, 'start', '-H', '127.0.0.1', '-p', String(port)], dir, { ...ENV, PUBLIC_URL: base }, 'Ready');
}, 600_000);
afterAll(async () => {
  await server?.stop();
});

describe('docs/hosting/nextjs.md on a Next.js 16 production build (next build, next start)', () => {
  it('serves the card at the root, answers, streams unbuffered, and a client abort releases the stream', async () => {
    expect(existsSync(join(dir, 'app', 'a2a', '[[...path]]', 'route.ts'))).toBe(true);
    await probeHost(base, base);
  }, 60_000);
});
