import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../packages/client/src/index.js';
import { installPackages } from './readme-examples/install.js';
import { npmBinary } from './release/npm-binaries.js';
import { freePort } from './release/registry.js';
import { workerdBuildOptions } from './workerd-bundle.js';

// server-http's README says its fetch handler serves on Workers, Bun and
// Deno. Each runtime, installed from npm, serves the agent of
// scripts/runtimes/app.mjs with that handler, from the packages as packed
// for npm; a client conversation runs against it over JSON-RPC and over
// HTTP+JSON: send (input-required), send again (continues, artifact,
// completed), a stream, GetTask, and a cancel of a running stream.
const root = join(import.meta.dirname, '..');
const cache = join(root, 'node_modules', '.cache', 'taskwire-runtimes');
const app = join(root, '.runtimes', 'app');

interface Runtime {
  readonly name: string;
  /** Starts the runtime serving on `port`; resolves once it serves. */
  start(port: number): Promise<ChildProcess>;
  /** The command that runs client.mjs with the runtime, when it runs scripts (workerd only serves). */
  client?(): [string, string[]];
}

const running: ChildProcess[] = [];
function launch(command: string, args: string[], env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd: app, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const check = () => {
      if (output.includes(ready)) resolve(child);
    };
    child.stdout!.on('data', (chunk) => ((output += chunk), check()));
    child.stderr!.on('data', (chunk) => ((output += chunk), check()));
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}) before it served:\n${output}`)));
  });
}

/** What this test uses of esbuild (tsup's, not a dependency of the root, so its types are not in reach here). */
interface EsbuildModule {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** Bundles worker.mjs and what it imports into one module for workerd (esbuild, from the workspace's tsup). */
async function bundleWorker(): Promise<void> {
  const esbuild = createRequire(createRequire(join(root, 'package.json')).resolve('tsup'))('esbuild') as EsbuildModule;
  // The packages as packed for npm: no source condition. serveA2A's node:http is left out (imported only when called).
  await esbuild.build({ ...workerdBuildOptions(join(app, 'worker.mjs'), { source: false }), outfile: join(app, 'worker.bundle.mjs') });
}

const RUNTIMES: Runtime[] = [
  {
    name: 'Bun',
    start: (port) => launch(npmBinary('@oven/bun-linux-x64@1.4.5', 'bin/bun', cache), ['bun.mjs'], { PORT: String(port) }, 'serving on Bun'),
    client: () => [npmBinary('@oven/bun-linux-x64@1.4.5', 'bin/bun', cache), ['client.mjs']],
  },
  {
    name: 'Deno',
    start: (port) =>
      launch(npmBinary('@deno/linux-x64-glibc@2.9.6', 'deno', cache), ['run', '--allow-net', '--allow-env', '--allow-read', 'deno.mjs'], { PORT: String(port), DENO_NO_UPDATE_CHECK: '1' }, 'serving on Deno'),
    client: () => [npmBinary('@deno/linux-x64-glibc@2.9.6', 'deno', cache), ['run', '--allow-net', '--allow-env', '--allow-read', 'client.mjs']],
  },
  {
    name: 'workerd',
    async start(port) {
      await bundleWorker();
      const config = join(app, `workerd-${port}.capnp`);
      writeFileSync(
        config,
        [
          'using Workerd = import "/workerd/workerd.capnp";',
          'const config :Workerd.Config = (',
          '  services = [ (name = "main", worker = .worker) ],',
          `  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],`,
          ');',
          'const worker :Workerd.Worker = (',
          '  modules = [ (name = "worker.mjs", esModule = embed "worker.bundle.mjs") ],',
          '  compatibilityDate = "2026-11-01",',
          `  bindings = [ (name = "BASE_URL", text = "http://127.0.0.1:${port}") ],`,
          ');',
          '',
        ].join('\n'),
      );
      // workerd prints nothing once it listens: ready when its socket answers (the card), or failed when it exits.
      const child = spawn(npmBinary('@cloudflare/workerd-linux-64@1.20261117.1', 'bin/workerd', cache), ['serve', config], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
      running.push(child);
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      for (let attempt = 0; ; attempt++) {
        if (child.exitCode !== null) throw new Error(`workerd exited (${child.exitCode}) before it served:\n${output}`);
        const answered = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`).then((r) => r.ok, () => false);
        if (answered) return child;
        if (attempt === 600) throw new Error(`workerd did not serve within a minute:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  },
];

beforeAll(() => {
  installPackages(root, app, []);
  for (const file of readdirSync(join(root, 'scripts', 'runtimes'))) copyFileSync(join(root, 'scripts', 'runtimes', file), join(app, file));
}, 300_000);
afterAll(async () => {
  await Promise.all(
    running.filter((child) => child.exitCode === null && child.signalCode === null).map((child) => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGKILL')))),
  );
});

describe.each(RUNTIMES)('the fetch handler on $name', (runtime) => {
  let url = '';
  beforeAll(async () => {
    const port = await freePort();
    await runtime.start(port);
    url = `http://127.0.0.1:${port}`;
  }, 120_000);

  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    it(`a client conversation over ${binding}: send, continue, stream, get, cancel`, async () => {
      const client = await createClient(url, { preferred: [binding] });
      try {
        expect(client.interface?.protocolBinding).toBe(binding);
        const chat = client.conversation();
        const first = await chat.send('weather please');
        expect([first.text, chat.state]).toEqual(['Which city?', 'TASK_STATE_INPUT_REQUIRED']);
        const reply = await chat.send('Lisbon');
        expect([reply.text, chat.state, reply.task?.id]).toEqual(['Here is your forecast.', 'TASK_STATE_COMPLETED', first.task?.id]);
        expect(reply.task?.artifacts?.[0]?.parts).toEqual([{ text: 'Sunny in Lisbon' }]);

        const streamed: (string | undefined)[] = [];
        for await (const event of chat.stream('and tomorrow?')) streamed.push(chat.view.state ?? String(event.sequence));
        expect(streamed.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');

        const got = await client.getTask({ id: reply.task!.id });
        expect(got.status.state).toBe('TASK_STATE_COMPLETED');
        expect(got.artifacts?.[0]?.parts).toEqual([{ text: 'Sunny in Lisbon' }]);

        const slow = client.conversation();
        const states: string[] = [];
        for await (const event of slow.stream('slow')) {
          void event;
          states.push(slow.view.state ?? '');
          if (slow.view.state === 'TASK_STATE_WORKING' && states.filter((s) => s === 'TASK_STATE_WORKING').length === 2) {
            const canceled = await client.cancelTask({ id: slow.taskId! });
            expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
          }
        }
        expect(states.at(-1)).toBe('TASK_STATE_CANCELED');
        expect((await client.getTask({ id: slow.taskId! })).status.state).toBe('TASK_STATE_CANCELED');
      } finally {
        await client.close();
      }
    }, 60_000);
  }

  if (runtime.client) {
    it(`@taskwire/client's main entry runs the same conversation on ${runtime.name}`, () => {
      const [command, args] = runtime.client!();
      const result = spawnSync(command, [...args, url], { cwd: app, encoding: 'utf8', env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' }, timeout: 60_000 });
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({
        first: 'Which city?',
        reply: 'Here is your forecast.',
        sameTask: true,
        artifact: [{ text: 'Sunny in Lisbon' }],
        streamedLast: 'TASK_STATE_INPUT_REQUIRED',
        got: 'TASK_STATE_COMPLETED',
        canceled: 'TASK_STATE_CANCELED',
      });
    }, 60_000);
  }
});
