/**
 * One server of the WebSocket benchmark, run in its own process so the load
 * generator never shares its event loop:
 *
 *   ws-servers.ts ours   Taskwire: reference agent, memory store, serveWebSocket
 *   ws-servers.ts floor  bare `ws`: answers each call with a frame of the size
 *                        of ours ($FLOOR_REPLY_BYTES), and each stream call
 *                        with frames of the types and sizes of ours
 *                        ($FLOOR_STREAM: JSON [type, bytes][]), without
 *                        decoding the request
 *
 *   ws-servers.ts ceiling-unary|ceiling-stream <seconds> <concurrency>
 *                        no server: the same TaskService driven in-process,
 *                        with a server's JSON work (requests parsed, replies
 *                        and events serialized) and no network; prints
 *                        `RESULT {"messages","seconds"}` and exits
 *
 * Prints `READY <url>` once it listens; exits on SIGTERM / SIGINT.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveWebSocket, wsInterface } from '@taskwire/server-ws';
import { WebSocketServer } from 'ws';
import { floorFrame, idOf } from './ws-load.js';

type Stop = () => Promise<void>;

function referenceService(): TaskService {
  const card = referenceAgentCard([wsInterface('ws://127.0.0.1:0/a2a/ws')]);
  return new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
}

async function ours(): Promise<[string, Stop]> {
  const service = referenceService();
  const server = await serveWebSocket({ service });
  return [server.url, async () => (await server.close(), await service.close())];
}

/** The floor: the least a `ws` server does for the same exchange (frames of the same sizes, the caller's id spliced in). */
async function floor(): Promise<[string, Stop]> {
  const replyBytes = Number(process.env.FLOOR_REPLY_BYTES ?? 0);
  const stream = JSON.parse(process.env.FLOOR_STREAM ?? '[]') as [string, number][];
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  wss.on('connection', (socket) => {
    socket.on('message', (data: Buffer) => {
      const id = idOf(data);
      if (data.includes('"method":"subscription"')) {
        for (const [type, bytes] of stream) socket.send(floorFrame(id, type, bytes));
      } else {
        socket.send(floorFrame(id, 'data', replyBytes));
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return [`ws://127.0.0.1:${port}/`, () => new Promise((resolve) => (wss.close(), http.close(() => resolve())))];
}

/**
 * Drives the service in-process with `concurrency` calls (or streams) in
 * flight for `seconds`, with the JSON work a server does: each request
 * parsed from text, each reply and event serialized.
 */
async function ceiling(streaming: boolean, seconds: number, concurrency: number): Promise<void> {
  const service = referenceService();
  const request = (id: number, text: string) => JSON.parse(`{"message":{"messageId":"m-${id}","role":"ROLE_USER","parts":[{"text":"${text}"}]}}`) as unknown;
  let id = 0;
  let messages = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      if (!streaming) {
        JSON.stringify(await service.unary('SendMessage', request(++id, 'echo hi')));
        messages++;
        continue;
      }
      for await (const event of await service.stream('SendStreamingMessage', request(++id, 'slow 100 0'))) {
        JSON.stringify(event);
        messages++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  process.stdout.write(`RESULT ${JSON.stringify({ messages, seconds: (performance.now() - started) / 1000 })}\n`);
  await service.close();
  process.exit(0);
}

const kind = process.argv[2] ?? '';
if (kind.startsWith('ceiling-')) await ceiling(kind === 'ceiling-stream', Number(process.argv[3]), Number(process.argv[4]));
const kinds: Record<string, () => Promise<[string, Stop]>> = { ours, floor };
const start = kinds[kind];
if (!start) {
  process.stderr.write(`usage: ws-servers.ts ${Object.keys(kinds).join('|')}|ceiling-unary|ceiling-stream\n`);
  process.exit(2);
}
const [url, stop] = await start();
process.stdout.write(`READY ${url}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void stop().finally(() => process.exit(0)));
}
