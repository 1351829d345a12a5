// A hosting page whose app compiles to dist/main.js and runs with Node
// (Express, Fastify, NestJS): built once (framework-app.ts), started on a
// free port and checked as every hosting page is (probe.ts).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { builtApp, type BuiltAppSpec } from './framework-app.js';
import { probeHost } from './probe.js';
import { serve, type Served } from './serve.js';
import { freePort } from '../release/registry.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * Declares a describe block titled `title` for the page's app in
 * `.cache/hosting/<name>`: before its tests, the app is built ({@link builtApp})
 * and `dist/main.js` started with this Node, given PORT and PUBLIC_URL, ready
 * once it prints "A2A at"; one test checks it with {@link probeHost} under
 * `/agent`; `more` may declare further tests, reading the site's URL with
 * the function it is given. The server is stopped after the block.
 */
export function describeNodePage(name: string, spec: BuiltAppSpec, title: string, more?: (site: () => string) => void): void {
  describe(title, () => {
    let server: Served | undefined;
    let base = '';
    beforeAll(async () => {
      const dir = builtApp(root, name, spec);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = await serve(process.execPath, ['dist/main.js'], dir, { PORT: String(port), PUBLIC_URL: base }, 'A2A at');
    }, 600_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('serves the card at the root, answers below /agent, streams unbuffered, and a client abort releases the stream', async () => {
      await probeHost(base, `${base}/agent`);
    }, 120_000);
    more?.(() => base);
  });
}
