import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../examples/reference-agent/src/serve-all.js';
import { serveAll } from '../examples/reference-agent/src/serve-all.js';
import type { Example, ReadmeExamples } from './readme-examples/blocks.js';
import { examplesOf } from './readme-examples/blocks.js';
import { installPackages } from './readme-examples/install.js';
import type { PortSwap, Running } from './readme-examples/run.js';
import { runToEnd, start, typeCheck, whenReady } from './readme-examples/run.js';
import { node22 } from './node22.mjs';
import { freshDatabases, type Databases } from './readme-commands/databases.js';

// Every ```ts block of the root README and of each package's README is
// type-checked and run as a user would: an ES module in an app whose
// node_modules holds the packages as packed for npm (see install.ts), with
// Node, not against the TypeScript sources. See blocks.ts for the comments
// that say what a block needs to run (an agent to talk to, a database).
const root = join(import.meta.dirname, '..');
const app = join(root, '.readme-examples', 'app');
/** Third-party packages the examples import, and the types they use. */
const EXTRA = ['@types/node', '@types/ws', '@types/express', '@types/pg', 'express', 'fastify', '@trpc/client', 'ws', '@opentelemetry/api', 'ai', 'zod', '@a2a-js/sdk', 'hono', '@hono/node-server', 'kysely'];
/** The push-secret keys the postgres README's example reads (32 random bytes each, base64). */
const PUSH_KEYS = { PUSH_KEY_2026_11: randomBytes(32).toString('base64'), PUSH_KEY_2026_05: randomBytes(32).toString('base64') };
const database = process.env.TASKWIRE_TEST_DATABASE_URL;
const inCi = process.env.CI === 'true';

const readmes: ReadmeExamples[] = [
  'README.md',
  'docs/from-a2a-js.md',
  ...readdirSync(join(root, 'docs', 'hosting')).map((name) => `docs/hosting/${name}`),
  ...['packages', 'examples'].flatMap((dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}/README.md`)),
]
  .filter((path) => existsSync(join(root, path)))
  .map((path) => examplesOf(path, readFileSync(join(root, path), 'utf8')))
  .filter((readme) => readme.examples.length > 0);

/** The port each README's examples run on, in place of the one they are written with (8080, or the agent's). */
const ports = new Map<string, PortSwap>();
let agent: RunningAgent | undefined;
/** Fresh databases on the test server (`TASKWIRE_TEST_DATABASE_URL`), dropped at the end. */
let databases: Databases | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  installPackages(root, app, EXTRA);
  if (readmes.some((r) => r.agentPort !== undefined)) {
    agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
  }
  for (const readme of readmes) {
    const to = readme.agentPort !== undefined ? Number(new URL(agent!.baseUrl).port) : await freePort();
    ports.set(readme.readme, { from: readme.agentPort ?? 8080, to });
  }
  if (database) databases = freshDatabases(root, database);
}, 300_000);
afterAll(async () => {
  await agent?.close();
  await databases?.close();
});

describe('README examples', () => {
  it('type-check against the packed packages, as ES modules with moduleResolution NodeNext', () => {
    expect(typeCheck(app, readmes.flatMap((r) => r.examples), ports)).toEqual([]);
  }, 360_000);

  for (const readme of readmes) {
    it(`${readme.readme}: its ${readme.examples.length} example(s) run with Node`, async () => {
      const env: Record<string, string> = { ...PUSH_KEYS };
      // A README that needs a newer Node (the AI SDK 7 needs 22) runs on the official binary (scripts/node22.mjs).
      const node = readme.nodeMajor !== undefined ? (node22() as string) : process.execPath;
      let server: Running | undefined;
      const stop = async () => {
        server?.child.kill('SIGKILL');
        await server?.exited;
        server = undefined;
      };
      try {
        for (const example of readme.examples) {
          if (example.needsDatabase) {
            if (!databases) {
              if (inCi) throw new Error(`${notRun(example)}: TASKWIRE_TEST_DATABASE_URL is not set (.ci/run starts a database)`);
              console.warn(`${notRun(example)}: it needs PostgreSQL; start one with "bash scripts/start-postgres.sh" and set TASKWIRE_TEST_DATABASE_URL`);
              continue;
            }
            env.DATABASE_URL ??= await databases.create('tw_readme');
          }
          const running = start(app, example, ports, env, node);
          if (example.serves === undefined) {
            await runToEnd(running, example, 60_000);
            continue;
          }
          await stop();
          server = running;
          await whenReady(running, example);
        }
      } finally {
        await stop();
      }
    }, 120_000);
  }
});

function notRun(example: Example): string {
  return `${example.readme} example ${example.index + 1} did not run`;
}
