import { describeNodePage } from './hosting/node-page.js';

// docs/hosting/express.md, run: its files laid out as an Express 5 app
// installed from npm (kept in .cache/hosting between runs), compiled with
// the page's tsconfig.json (`tsc`) and started with Node, then checked as
// every hosting page is (hosting/probe.ts).
describeNodePage(
  'express',
  {
    doc: 'docs/hosting/express.md',
    dependencies: { express: '5.3.0', typescript: '5.9.3', '@types/node': '20.19.43', '@types/express': '5.0.6' },
    taskwire: ['@taskwire/server-http'],
    manifest: { type: 'module' },
    output: 'dist',
    build: ['node_modules/typescript/bin/tsc'],
  },
  'docs/hosting/express.md on Express 5',
);
