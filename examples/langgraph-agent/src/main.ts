#!/usr/bin/env node
// `npm start` here: the LangGraph travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
import { langGraphAgent } from '@taskwire/langgraph';
import { consoleLogger, optionsOrExit, serveAll, stopOnSignals, urlLines } from '@taskwire/reference-agent/serve';
import { travelCard, travelGraph } from './agent.js';

const options = optionsOrExit();
const running = await serveAll(options, consoleLogger(), { agent: langGraphAgent(travelGraph()), card: travelCard }).catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});
console.log(`Taskwire LangGraph travel agent, on LangChain's fake chat models
${urlLines(running)}
Try:
  npm run taskwire -- send ${running.baseUrl} "weather in Oslo"
  npm run taskwire -- send ${running.baseUrl} "book Lisbon"   # then answer: approve
Press Ctrl+C to stop.`);

stopOnSignals(running, options.drainGraceMs);
