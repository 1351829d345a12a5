import * as grpc from '@grpc/grpc-js';
import type { AuthPolicy, Logger, MethodName, TaskServiceOptions } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterEach } from 'vitest';
import { grpcTransport } from '../src/client.js';
import { RPC_CODECS } from '../src/convert.js';
import type { GrpcServerHandle } from '../src/serve.js';
import { grpcInterface, serveGrpc } from '../src/serve.js';

/** Things to close after each test, last opened first. */
const open: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!();
});

/** Registers `close` to run after the current test. */
export function closeAfterTest(close: () => Promise<void> | void): void {
  open.push(close);
}

/** A fresh service with the reference agent and a memory store. */
export function referenceService(options: Partial<TaskServiceOptions> = {}): TaskService {
  const service = new TaskService({
    store: createMemoryTaskStore(),
    agent: referenceAgent,
    card: referenceAgentCard([grpcInterface('127.0.0.1:0')]),
    ...options,
  });
  closeAfterTest(() => service.close());
  return service;
}

/** Serves `service` on a free port until the test ends. */
export async function serve(
  service: TaskService,
  options: { auth?: AuthPolicy; logger?: Logger; maxMessageBytes?: number } = {},
): Promise<GrpcServerHandle> {
  const server = await serveGrpc({ service, ...options });
  closeAfterTest(() => server.close(0));
  return server;
}

/** A Taskwire gRPC client transport, closed when the test ends. */
export function connect(url: string, metadata?: Record<string, string>) {
  const transport = grpcTransport({ url, ...(metadata && { metadata }) });
  closeAfterTest(() => transport.close());
  return transport;
}

/** What a raw gRPC call ended with. */
export interface RawOutcome {
  readonly error?: grpc.ServiceError;
  readonly bytes?: Buffer;
}

/** Calls a unary rpc with raw bytes and raw metadata, to look at the wire itself. */
export function rawUnary(url: string, method: MethodName, bytes: Buffer, metadata: Record<string, string> = {}): Promise<RawOutcome> {
  const client = new grpc.Client(url, grpc.credentials.createInsecure());
  closeAfterTest(() => client.close());
  const md = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) md.set(key, value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      RPC_CODECS[method].path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      bytes,
      md,
      (error, value) => resolve(error ? { error } : { bytes: value! }),
    );
  });
}
