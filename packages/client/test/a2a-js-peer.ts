// A small agent on the official @a2a-js/sdk server (express for JSON-RPC and
// HTTP+JSON, its gRPC service), for interop tests of our client.
import type { Server as HttpServer, RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';

/** The little of express these tests use (express ships no types of its own). */
interface ExpressApp extends RequestListener {
  use(path: string, handler: unknown): void;
  listen(port: number, host: string, done: (error?: Error) => void): HttpServer;
}
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

const textOf = (m: Message | undefined) => m?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';

function say(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: crypto.randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** An extension the peer activates when a request asks for it (with the SDK's own API). */
export const PEER_EXTENSION = 'https://example.com/ext/timestamp/v1';

/**
 * The peer's agent: "... quote ..." asks which platform (input-required);
 * the answer on that task produces artifact `quote` and completes; "make it
 * shorter" (referencing a task) completes with a shorter `quote`; anything
 * else is echoed. It activates {@link PEER_EXTENSION} when asked for it.
 */
class QuoteExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const text = textOf(ctx.userMessage).trim();
    if (ctx.context.requestedExtensions?.includes(PEER_EXTENSION)) ctx.context.addActivatedExtension(PEER_EXTENSION);
    const status = (state: TaskState, message?: Message) =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }));
    const artifact = (value: string) =>
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: { artifactId: 'quote', name: 'quote', description: '', parts: [{ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [] },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
    const task: Task = ctx.task ?? {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };
    bus.publish(AgentEvent.task(task));
    if (ctx.task?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) {
      status(TaskState.TASK_STATE_WORKING);
      artifact(`A ${text} quote: the sun sets, the story goes on.`);
      status(TaskState.TASK_STATE_COMPLETED, say(taskId, contextId, `Here is your ${text} quote.`));
    } else if (text.includes('quote')) {
      status(TaskState.TASK_STATE_INPUT_REQUIRED, say(taskId, contextId, 'Which platform?'));
    } else if (text.includes('shorter')) {
      const source = ctx.referenceTasks?.[0];
      const long = source?.artifacts[0]?.parts[0]?.content;
      artifact(long?.$case === 'text' ? long.value.split(':')[0]! : 'nothing to shorten');
      status(TaskState.TASK_STATE_COMPLETED, say(taskId, contextId, `Shortened ${source?.id ?? 'nothing'}.`));
    } else {
      status(TaskState.TASK_STATE_COMPLETED, say(taskId, contextId, `echo: ${text}`));
    }
  }

  async cancelTask(): Promise<void> {}
}

/** A running @a2a-js/sdk agent. */
export interface Peer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the peer on free ports of 127.0.0.1: JSON-RPC, HTTP+JSON and the card over express, gRPC on its own port. */
export async function startPeer(): Promise<Peer> {
  const card = {
    name: 'a2a-js peer',
    description: 'An agent on the official SDK',
    supportedInterfaces: [],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: PEER_EXTENSION, description: 'timestamps', required: false, params: undefined }], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new QuoteExecutor());
  const app = express();
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(server)));
  });
  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  card.supportedInterfaces.push(
    { url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: `${base}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
    { url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion: '1.0' },
  );
  return {
    url: base,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => grpcServer.tryShutdown(() => resolve()));
    },
  };
}
