/**
 * One server of the HTTP benchmark, run in its own process so the load
 * generator never shares its event loop:
 *
 *   http-servers.ts ours     Taskwire: reference agent, memory store, serveA2A
 *   http-servers.ts adapter  serveA2A exactly as ours, but the service's SendMessage
 *                            answers a completed task of the same shape and size at
 *                            once (no store, no agent, no lifecycle): the HTTP layer alone
 *   http-servers.ts peer     @a2a-js/sdk 1.3.0 express JSON-RPC with an equivalent agent
 *   http-servers.ts floor    bare node:http: parses the JSON-RPC request, answers a
 *                            reply of the same size (the template in $FLOOR_REPLY)
 *
 * Prints `READY <port>` once it listens; exits on SIGTERM / SIGINT.
 */
import { randomUUID } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import type { Message, SendMessageResponse } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';
import { peerRequestHandler } from './http-peer-agent.js';

// The bench has no express typings; this is the part of express it uses.
type ExpressApp = RequestListener & { use(path: string, handler: unknown): void };
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

/** Where every benchmarked server answers JSON-RPC. */
export const JSON_RPC_PATH = '/a2a/jsonrpc';

type Stop = () => Promise<void>;

/** Our reference agent service, served by serveA2A; `adapt` may replace parts of the service first. */
async function served(adapt: (service: TaskService) => void = () => undefined): Promise<[number, Stop]> {
  const card = referenceAgentCard([{ url: `http://127.0.0.1${JSON_RPC_PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  // BENCH_TELEMETRY=off builds the service with telemetry switched off (the tracing overhead benchmark's baseline).
  const telemetry = process.env.BENCH_TELEMETRY === 'off' ? false : undefined;
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card, telemetry });
  adapt(service);
  const server = await serveA2A({ service, port: 0, host: '127.0.0.1' });
  return [server.port, async () => (await server.close(), await service.close())];
}

/**
 * What the reference agent answers to `echo <x>`, built at once: a completed
 * task with fresh ids, the user's message in its history and `<x>` in its
 * status message. Same fields, same size as ours; nothing is stored.
 */
function completedEcho(params: unknown): SendMessageResponse {
  const message = (params as { message: Message }).message;
  const id = randomUUID();
  const contextId = randomUUID();
  const text = (message.parts[0] as { text?: string } | undefined)?.text?.replace(/^echo /, '') ?? '';
  const reply: Message = { messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }], taskId: id, contextId };
  const status = { state: 'TASK_STATE_COMPLETED' as const, message: reply, timestamp: new Date().toISOString() };
  return { task: { id, contextId, status, history: [{ ...message, taskId: id, contextId }] } };
}

/** The adapter alone: serveA2A as ours, with SendMessage answered by {@link completedEcho} (no task lifecycle). */
function adapter(): Promise<[number, Stop]> {
  return served((service) => {
    const unary = service.unary.bind(service);
    service.unary = ((method, params, context) =>
      method === 'SendMessage' ? Promise.resolve(completedEcho(params)) : unary(method, params, context)) as TaskService['unary'];
  });
}

async function peer(): Promise<[number, Stop]> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const requestHandler = peerRequestHandler(`http://127.0.0.1:${port}${JSON_RPC_PATH}`);
  app.use(JSON_RPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return [port, () => new Promise((resolve) => server.close(() => resolve()))];
}

/** The floor: the least a JSON-RPC server can do for the same exchange. */
async function floor(): Promise<[number, Stop]> {
  const template = JSON.parse(process.env.FLOOR_REPLY ?? '{}') as { result?: { task?: { id: string; contextId: string } } };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string; params: { message: { parts: { text: string }[] } } };
      const ok = req.method === 'POST' && request.method === 'SendMessage' && request.params.message.parts[0]!.text.startsWith('echo ');
      const task = template.result?.task;
      if (task) {
        task.id = randomUUID();
        task.contextId = randomUUID();
      }
      const body = ok ? JSON.stringify({ ...template, id: request.id }) : '{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}}';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [(server.address() as AddressInfo).port, () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections()))];
}

const kinds: Record<string, () => Promise<[number, Stop]>> = { ours: () => served(), adapter, peer, floor };

async function main(): Promise<void> {
  const kind = process.argv[2] ?? '';
  const start = kinds[kind];
  if (!start) throw new Error(`usage: http-servers.ts ${Object.keys(kinds).join('|')}`);
  const [port, stop] = await start();
  const shutdown = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdout.write(`READY ${port}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
