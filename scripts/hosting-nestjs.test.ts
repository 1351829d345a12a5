import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { builtApp } from './hosting/framework-app.js';
import { probeHost } from './hosting/probe.js';
import { serve, type Served } from './hosting/serve.js';
import { freePort } from './release/registry.js';

// docs/hosting/nestjs.md, run: its files laid out as a NestJS 12 app on the
// Express platform, installed from npm (kept in .cache/hosting between
// runs), compiled with the page's tsconfig.json (`tsc`) and started with
// Node, then checked as every hosting page is (hosting/probe.ts).
const root = join(import.meta.dirname, '..');

let server: Served | undefined;
let base = '';

beforeAll(async () => {
  const nest = '12.6.3';
  const dir = builtApp(root, 'nestjs', {
    doc: 'docs/hosting/nestjs.md',
    dependencies: {
      '@nestjs/core': nest,
      '@nestjs/common': nest,
      '@nestjs/platform-express': nest,
      'reflect-metadata': '0.2.2',
      rxjs: '7.8.2',
      typescript: '5.9.3',
      '@types/node': '20.19.43',
      '@types/express': '5.0.6',
    },
    taskwire: ['@taskwire/server-http'],
    manifest: { type: 'module' },
    output: 'dist',
    build: ['node_modules/typescript/bin/tsc'],
  });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = await serve(process.execPath, ['dist/main.js'], dir, { PORT: String(port), PUBLIC_URL: base }, 'A2A at');
}, 600_000);
afterAll(async () => {
  await server?.stop();
});

describe('docs/hosting/nestjs.md on NestJS 12 (@nestjs/platform-express)', () => {
  it('serves the card at the root, answers below /agent, streams unbuffered, and a client abort releases the stream', async () => {
    await probeHost(base, `${base}/agent`);
  }, 120_000);
});
