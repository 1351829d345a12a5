#!/usr/bin/env node
// `npm start`: the reference agent on every transport. Prints what it serves
// and how to talk to it; stops cleanly on SIGINT/SIGTERM.
import './grpc-verbosity.js';
import { redactUrl } from '@taskwire/postgres';
import { consoleLogger } from './console-logger.js';
import { optionsOrExit, stopOnSignals, urlLines } from './command-line.js';
import { serveAll } from './serve-all.js';
import { migrationLine, startupFailure, tryLines } from './startup-message.js';
import { startTelemetry } from './telemetry.js';

const logger = consoleLogger();

const options = optionsOrExit();

// With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) set, the OpenTelemetry SDK starts first; otherwise nothing is loaded.
const telemetry = await startTelemetry().catch((error: Error) => {
  console.error(`Could not start OpenTelemetry: ${error.message}`);
  process.exit(1);
});
const agent = await serveAll(options, logger).catch((error: unknown) => {
  console.error(startupFailure(error, options.store));
  process.exit(1);
});
const storeName =
  options.store.kind === 'memory'
    ? 'memory store'
    : options.store.kind === 'file'
      ? `file store in ${options.store.dir}`
      : options.store.kind === 'sqlite'
        ? `SQLite store in ${options.store.path}`
        : `postgres store at ${redactUrl(options.store.url)}, schema "${options.store.schema}"`;
if (agent.migration) console.log(migrationLine(agent.migration));
// Behind a load balancer, say where the card sends clients.
const behind = [
  ...(agent.publicUrl === agent.baseUrl ? [] : [`the card points clients at ${agent.publicUrl}`]),
  ...(options.trustProxy ? ["the card follows the proxy's Forwarded / X-Forwarded-* headers"] : []),
]
  .map((line) => `\n  ${line}`)
  .join('');
console.log(`Taskwire reference agent (${storeName})
${urlLines(agent)}${behind}

Try:
${tryLines({ baseUrl: agent.baseUrl, jsonRpc: agent.urls.jsonRpc, apiKey: options.apiKey, oidc: options.oidc })}
Press Ctrl+C to stop.`);

// Spans still buffered go out before the process exits.
stopOnSignals(agent, options.drainGraceMs, () => telemetry?.shutdown());
