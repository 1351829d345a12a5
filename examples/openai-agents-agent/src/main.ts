#!/usr/bin/env node
// `npm start` here: the Agents SDK travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(`The Agents SDK travel agent needs Node.js 22 or newer (the SDK's openai client does); this is Node ${process.version}.\n`);
  process.exit(1);
}
const { openaiAgent } = await import('@taskwire/openai-agents');
const { serveExample } = await import('@taskwire/reference-agent/serve');
const { chooseModel, travelAgent, travelCard } = await import('./agent.js');

const { model, name } = chooseModel();
await serveExample({
  title: `Taskwire Agents SDK travel agent, on ${name}`,
  agent: openaiAgent(travelAgent(model)),
  card: travelCard,
  tries: [['weather in Oslo'], ['book Lisbon', 'then answer: approve']],
});
export {};
