import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { builtApp } from './hosting/framework-app.js';
import { probeHost } from './hosting/probe.js';
import { serve, type Served } from './hosting/serve.js';
import { npmBinary } from './release/npm-binaries.js';
import { freePort } from './release/registry.js';

// docs/hosting/hono.md, run: its files laid out as an app with Hono
// installed from npm (kept in .cache/hosting between runs), compiled with
// the page's tsconfig.json (`tsc`), and served on Node (dist/node.js), on
// Bun (src/bun.ts as it is) and in workerd (src/worker.ts bundled with
// esbuild), each checked as every hosting page is (hosting/probe.ts). Bun
// and workerd are the binaries the runtime tests use (scripts/runtimes.test.ts).
const root = join(import.meta.dirname, '..');
const binaries = join(root, 'node_modules', '.cache', 'taskwire-runtimes');
let dir = '';

beforeAll(() => {
  dir = builtApp(root, 'hono', {
    doc: 'docs/hosting/hono.md',
    dependencies: { hono: '4.13.19', '@hono/node-server': '1.19.19', esbuild: '0.25.12', typescript: '5.9.3', '@types/node': '20.19.43' },
    taskwire: ['@taskwire/server-http'],
    manifest: { type: 'module' },
    output: 'dist',
    build: ['node_modules/typescript/bin/tsc'],
  });
}, 600_000);

/** Serves the worker in workerd on `port`, as `wrangler dev` would: bundled, with PUBLIC_URL as a text binding. */
function workerd(port: number, base: string): Promise<Served> {
  const bundle = spawnSync(
    join(dir, 'node_modules', '.bin', 'esbuild'),
    ['src/worker.ts', '--bundle', '--format=esm', '--platform=neutral', '--main-fields=module,main', '--conditions=workerd,worker,browser,import', '--external:node:*', '--outfile=worker.bundle.js'],
    { cwd: dir, encoding: 'utf8' },
  );
  if (bundle.status !== 0) throw new Error(`esbuild failed:\n${bundle.stdout}${bundle.stderr}`);
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (services = [(name = "main", worker = .worker)], sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")]);
const worker :Workerd.Worker = (modules = [(name = "worker.js", esModule = embed "worker.bundle.js")], compatibilityDate = "2026-11-01", bindings = [(name = "PUBLIC_URL", text = "${base}")]);
`;
  writeFileSync(join(dir, 'workerd.capnp'), config);
  // workerd says nothing once it listens: ready when the card answers.
  return serve(npmBinary('@cloudflare/workerd-linux-64@1.20261117.1', 'bin/workerd', binaries), ['serve', 'workerd.capnp'], dir, {}, `${base}/.well-known/agent-card.json`);
}

const HOSTS: { name: string; start(port: number, base: string): Promise<Served> }[] = [
  { name: 'Node (@hono/node-server)', start: (port, base) => serve(process.execPath, ['dist/node.js'], dir, { PORT: String(port), PUBLIC_URL: base }, 'A2A at') },
  // Bun serves the default export once the module has run (after it printed its line): ready when the card answers.
  { name: 'Bun', start: (port, base) => serve(npmBinary('@oven/bun-linux-x64@1.4.5', 'bin/bun', binaries), ['src/bun.ts'], dir, { PORT: String(port), PUBLIC_URL: base }, `${base}/.well-known/agent-card.json`) },
  { name: 'workerd (Cloudflare Workers)', start: workerd },
];

describe.each(HOSTS)('docs/hosting/hono.md on $name', (host) => {
  let server: Served | undefined;
  let base = '';
  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await host.start(port, base);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('serves the card at the root, answers below /agent, streams unbuffered, and a client abort releases the stream', async () => {
    await probeHost(base, `${base}/agent`);
  }, 120_000);
});
