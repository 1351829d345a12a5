import type { A2AErrorKind, AgentCard, AuthPolicy, Authorize, Task } from '@taskwire/core';
import { A2AError, apiKeyAuth, createMemoryPushConfigStore, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { attachWebSocket, wsInterface } from '@taskwire/server-ws';
import type { AgentUrls } from '../support/agent-process.js';
import type { ClosableTransport } from '../support/transports.js';

/** The two callers and their API keys. */
export const KEYS = { alice: 'key-of-alice', bob: 'key-of-bob' } as const;

/** A host serving the reference agent on every binding to two principals, with push configs enabled. */
export interface TwoPrincipalHost {
  readonly urls: AgentUrls;
  close(): Promise<void>;
}

/**
 * Serves the reference agent (memory task and push-config stores, a card
 * with `pushNotifications: true`) over JSON-RPC, HTTP+JSON, WebSocket and
 * gRPC on free ports of 127.0.0.1, with one auth policy for all of them:
 * by default {@link KEYS} name `alice` and `bob`; no key is refused.
 * `options` can put another policy (`jwtAuth`), an `authorize` hook and
 * an extended card in place.
 */
export async function serveTwoPrincipals(
  options: { auth?: AuthPolicy; authorize?: Authorize; extendedCard?: AgentCard; security?: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> } = {},
): Promise<TwoPrincipalHost> {
  const auth = options.auth ?? { authenticate: apiKeyAuth({ [KEYS.alice]: 'alice', [KEYS.bob]: 'bob' }) };
  const base = referenceAgentCard([]);
  const card = { ...base, ...options.security, capabilities: { ...base.capabilities, pushNotifications: true, extendedAgentCard: options.extendedCard !== undefined } };
  const service = new TaskService({
    store: createMemoryTaskStore(),
    agent: referenceAgent,
    card,
    push: { store: createMemoryPushConfigStore() },
    ...(options.authorize && { authorize: options.authorize }),
    ...(options.extendedCard && { extendedCard: options.extendedCard }),
  });
  const grpc = await serveGrpc({ service, auth });
  const http = await serveA2A({
    service,
    auth,
    card: (url) => ({ ...card, supportedInterfaces: [...httpInterfaces(url), grpcInterface(grpc.url), wsInterface(`${url.replace(/^http/, 'ws')}/a2a/ws`)] }),
  });
  const ws = attachWebSocket({ server: http.server, service, auth });
  return {
    urls: {
      jsonRpc: `${http.url}/a2a/jsonrpc`,
      rest: `${http.url}/a2a/rest`,
      ws: `${http.url.replace(/^http/, 'ws')}/a2a/ws`,
      grpc: grpc.url,
      card: `${http.url}/.well-known/agent-card.json`,
    },
    async close() {
      await ws.close(500);
      await Promise.all([http.close(), grpc.close(500)]);
      await service.close();
    },
  };
}

/** What a call that must fail failed with: its A2A error kind, or a description of what happened instead. */
export async function failureOf(call: Promise<unknown> | AsyncIterable<unknown>): Promise<A2AErrorKind | string> {
  try {
    if (Symbol.asyncIterator in call) {
      for await (const event of call) return `a stream that yielded ${JSON.stringify(event).slice(0, 120)}`;
      return 'a stream that ended without an error';
    }
    return `success: ${JSON.stringify(await call).slice(0, 120)}`;
  } catch (error) {
    return A2AError.is(error) ? error.kind : `a non-A2A error: ${String(error)}`;
  }
}

/** Sends a text message as a new task (or on `taskId`) and returns the task. */
export async function sendText(transport: ClosableTransport, text: string, extra: { taskId?: string; referenceTaskIds?: string[]; returnImmediately?: boolean } = {}): Promise<Task> {
  const { returnImmediately, ...fields } = extra;
  const result = await transport.unary('SendMessage', {
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...fields },
    ...(returnImmediately && { configuration: { returnImmediately } }),
  });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}
