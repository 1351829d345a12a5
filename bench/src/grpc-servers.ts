/**
 * One server of the gRPC benchmark, run in its own process so the load
 * generator never shares its event loop:
 *
 *   grpc-servers.ts ours   Taskwire: reference agent, memory store, serveGrpc
 *   grpc-servers.ts peer   @a2a-js/sdk 1.3.0 grpcService with the HTTP benchmark's equivalent agent
 *   grpc-servers.ts floor  bare grpc-js: SendMessage answers fixed bytes of the same size
 *                          (base64 in $FLOOR_REPLY), without decoding the request
 *
 * Every server allows 4 MiB messages. Prints `READY <port>` once it
 * listens; exits on SIGTERM / SIGINT.
 */
import * as grpc from '@grpc/grpc-js';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { DEFAULT_MAX_MESSAGE_BYTES, grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { PATHS } from './grpc-load.js';
import { peerCard, peerExecutor } from './http-peer-agent.js';

type Stop = () => Promise<void>;

const SIZE_LIMITS = { 'grpc.max_receive_message_length': DEFAULT_MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': DEFAULT_MAX_MESSAGE_BYTES };

async function listen(server: grpc.Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
}

const shutdown = (server: grpc.Server): Stop => () => new Promise((resolve) => server.tryShutdown(() => resolve()));

async function ours(): Promise<[number, Stop]> {
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: referenceAgentCard([grpcInterface('127.0.0.1:0')]) });
  const server = await serveGrpc({ service });
  return [server.port, async () => (await server.close(), await service.close())];
}

async function peer(): Promise<[number, Stop]> {
  const server = new grpc.Server(SIZE_LIMITS);
  // The peer checks a2a-version against the card's GRPC interfaces, so the card lists one.
  const card = { ...peerCard('127.0.0.1:0'), supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' }] };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), peerExecutor);
  server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return [await listen(server), shutdown(server)];
}

/** The floor: the least a grpc-js server does for the same unary exchange. */
async function floor(): Promise<[number, Stop]> {
  const reply = Buffer.from(process.env.FLOOR_REPLY ?? '', 'base64');
  const server = new grpc.Server(SIZE_LIMITS);
  const bytes = (b: Buffer) => b;
  const definition: grpc.ServiceDefinition = {
    SendMessage: { path: PATHS.SendMessage, requestStream: false, responseStream: false, requestSerialize: bytes, requestDeserialize: bytes, responseSerialize: bytes, responseDeserialize: bytes },
  };
  server.addService(definition, { SendMessage: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => done(null, reply) });
  return [await listen(server), shutdown(server)];
}

const kinds: Record<string, () => Promise<[number, Stop]>> = { ours, peer, floor };

async function main(): Promise<void> {
  const kind = process.argv[2] ?? '';
  const start = kinds[kind];
  if (!start) throw new Error(`usage: grpc-servers.ts ${Object.keys(kinds).join('|')}`);
  const [port, stop] = await start();
  const exit = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', exit);
  process.once('SIGINT', exit);
  process.stdout.write(`READY ${port}\n`);
}

if (process.argv[1]?.endsWith('grpc-servers.ts')) void main();
