#!/usr/bin/env node
// `npm start` here: the LangGraph travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
import { langGraphAgent } from '@taskwire/langgraph';
import { serveExample } from '@taskwire/reference-agent/serve';
import { travelCard, travelGraph } from './agent.js';

await serveExample({
  title: "Taskwire LangGraph travel agent, on LangChain's fake chat models",
  agent: langGraphAgent(travelGraph()),
  card: travelCard,
  tries: [['weather in Oslo'], ['book Lisbon', 'then answer: approve']],
});
