#!/usr/bin/env node
// `pnpm start`: the reference agent on every transport. Prints what it serves
// and how to talk to it; stops cleanly on SIGINT/SIGTERM.
import './grpc-verbosity.js';
import { redactUrl } from '@taskwire/postgres';
import { consoleLogger } from './console-logger.js';
import { parseOptions, USAGE } from './options.js';
import { serveAll } from './serve-all.js';
import { migrationLine, startupFailure } from './startup-message.js';
import { startTelemetry } from './telemetry.js';

const logger = consoleLogger();

let options;
try {
  options = parseOptions(process.argv.slice(2).filter((a) => a !== '--'));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (options === 'help') {
  console.log(USAGE);
  process.exit(0);
}

// With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_TRACES_EXPORTER) set, the OpenTelemetry SDK starts first; otherwise nothing is loaded.
const telemetry = await startTelemetry().catch((error: Error) => {
  console.error(`Could not start OpenTelemetry: ${error.message}`);
  process.exit(1);
});
const agent = await serveAll(options, logger).catch((error: unknown) => {
  console.error(startupFailure(error, options.store));
  process.exit(1);
});
const key = options.apiKey ? ` -H 'x-api-key: ${options.apiKey}'` : '';
const storeName =
  options.store.kind === 'memory'
    ? 'memory store'
    : options.store.kind === 'file'
      ? `file store in ${options.store.dir}`
      : `postgres store at ${redactUrl(options.store.url)}, schema "${options.store.schema}"`;
if (agent.migration) console.log(migrationLine(agent.migration));
console.log(`Taskwire reference agent (${storeName})
  JSON-RPC   ${agent.urls.jsonRpc}
  HTTP+JSON  ${agent.urls.rest}
  WebSocket  ${agent.urls.ws}
  gRPC       ${agent.urls.grpc}
  card       ${agent.urls.card}
  web page   ${agent.urls.page}

Try:
  curl -s ${agent.urls.jsonRpc} -H 'content-type: application/json' -H 'A2A-Version: 1.0'${key} \\
    -d '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"echo hello"}]}}}'
  npm run taskwire -- send ${agent.baseUrl} "provide a sunset quote"
Press Ctrl+C to stop.`);

const drainGraceMs = options.drainGraceMs;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    // SIGTERM (an orchestrator) drains: running agents get the grace period; Ctrl+C stops them at once.
    const graceMs = signal === 'SIGTERM' ? drainGraceMs : 0;
    console.log(`\n${signal}: stopping${graceMs > 0 ? ` (running agents get ${graceMs} ms to finish)` : ''}…`);
    agent.close(graceMs).then(
      // Spans still buffered go out before the process exits.
      () => Promise.resolve(telemetry?.shutdown()).finally(() => process.exit(0)),
      (error: Error) => {
        console.error(`error while stopping: ${error.message}`);
        process.exit(1);
      },
    );
  });
}
