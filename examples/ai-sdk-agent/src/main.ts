#!/usr/bin/env node
// `npm start` here: the AI SDK travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
import './needs-node-22.js';
import { a2aAgent } from '@taskwire/ai-sdk';
import { consoleLogger, optionsOrExit, serveAll, stopOnSignals, urlLines } from '@taskwire/reference-agent/serve';
import { chooseModel, travelAgent, travelCard } from './agent.js';

const options = optionsOrExit();
const { model, name } = chooseModel();
const running = await serveAll(options, consoleLogger(), { agent: a2aAgent(travelAgent(model)), card: travelCard }).catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});
console.log(`Taskwire AI SDK travel agent, on ${name}
${urlLines(running)}
Try:
  npm run taskwire -- send ${running.baseUrl} "book Lisbon"   # then answer: approve
Press Ctrl+C to stop.`);

stopOnSignals(running, options.drainGraceMs);
