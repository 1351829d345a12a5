import { describeNodePage } from './hosting/node-page.js';

// docs/hosting/nestjs.md, run: its files laid out as a NestJS 12 app on the
// Express platform, installed from npm (kept in .cache/hosting between
// runs), compiled with the page's tsconfig.json (`tsc`) and started with
// Node, then checked as every hosting page is (hosting/probe.ts).
const nest = '12.6.3';
describeNodePage(
  'nestjs',
  {
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
  },
  'docs/hosting/nestjs.md on NestJS 12 (@nestjs/platform-express)',
);
