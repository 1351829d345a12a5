#!/usr/bin/env node
// `npm start` here: the Agents SDK travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(`The Agents SDK travel agent needs Node.js 22 or newer (the SDK's openai client does); this is Node ${process.version}.\n`);
  process.exit(1);
}
const { openaiAgent } = await import('@taskwire/openai-agents');
const { consoleLogger, optionsOrExit, serveAll, stopOnSignals, urlLines } = await import('@taskwire/reference-agent/serve');
const { chooseModel, travelAgent, travelCard } = await import('./agent.js');

const options = optionsOrExit();
const { model, name } = chooseModel();
const running = await serveAll(options, consoleLogger(), { agent: openaiAgent(travelAgent(model)), card: travelCard }).catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});
console.log(`Taskwire Agents SDK travel agent, on ${name}
${urlLines(running)}
Try:
  npm run taskwire -- send ${running.baseUrl} "weather in Oslo"
  npm run taskwire -- send ${running.baseUrl} "book Lisbon"   # then answer: approve
Press Ctrl+C to stop.`);

stopOnSignals(running, options.drainGraceMs);
export {};
