#!/usr/bin/env node
// `pnpm start` here: the AI SDK travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
import { a2aAgent } from '@taskwire/ai-sdk';
import { consoleLogger, parseOptions, serveAll, USAGE } from '@taskwire/reference-agent/serve';
import { chooseModel, travelAgent, travelCard } from './agent.js';

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
const { model, name } = chooseModel();
const running = await serveAll(options, consoleLogger(), { agent: a2aAgent(travelAgent(model)), card: travelCard }).catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});
console.log(`Taskwire AI SDK travel agent, on ${name}
  JSON-RPC   ${running.urls.jsonRpc}
  HTTP+JSON  ${running.urls.rest}
  WebSocket  ${running.urls.ws}
  gRPC       ${running.urls.grpc}
  card       ${running.urls.card}
  web page   ${running.urls.page}
Try: npm run taskwire -- send ${running.baseUrl} "book Lisbon"   (then: approve)
Press Ctrl+C to stop.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    running.close(signal === 'SIGTERM' ? options.drainGraceMs : 0).then(
      () => process.exit(0),
      (error: Error) => {
        console.error(`error while stopping: ${error.message}`);
        process.exit(1);
      },
    );
  });
}
