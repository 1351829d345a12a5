import { expect, it } from 'vitest';
import { describeNodePage } from './hosting/node-page.js';

// docs/hosting/fastify.md, run: its files laid out as a Fastify 5 app
// installed from npm (kept in .cache/hosting between runs), compiled with
// the page's tsconfig.json (`tsc`) and started with Node, then checked as
// every hosting page is (hosting/probe.ts); the page's own onRequest hook
// (it sets x-request-id) runs for A2A requests too.
describeNodePage(
  'fastify',
  {
    doc: 'docs/hosting/fastify.md',
    dependencies: { fastify: '5.12.8', typescript: '5.9.3', '@types/node': '20.19.43' },
    taskwire: ['@taskwire/server-http'],
    manifest: { type: 'module' },
    output: 'dist',
    build: ['node_modules/typescript/bin/tsc'],
  },
  'docs/hosting/fastify.md on Fastify 5 (a2aFastify)',
  (site) => {
    it("runs the app's own root onRequest hook before the plugin answers", async () => {
      const card = await fetch(`${site()}/agent/.well-known/agent-card.json`);
      expect(card.status).toBe(200);
      expect(card.headers.get('x-request-id')).toMatch(/\S/);
    });
  },
);
