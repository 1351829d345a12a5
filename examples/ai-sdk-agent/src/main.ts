#!/usr/bin/env node
// `npm start` here: the AI SDK travel agent on every transport of the
// reference setup (JSON-RPC, HTTP+JSON, WebSocket, gRPC, the card, the web
// page). Takes the reference agent's options (--port, --store, ...).
import './needs-node-22.js';
import { a2aAgent } from '@taskwire/ai-sdk';
import { serveExample } from '@taskwire/reference-agent/serve';
import { chooseModel, travelAgent, travelCard } from './agent.js';

const { model, name } = chooseModel();
await serveExample({
  title: `Taskwire AI SDK travel agent, on ${name}`,
  agent: a2aAgent(travelAgent(model)),
  card: travelCard,
  tries: [['book Lisbon', 'then answer: approve']],
});
