// Test helpers (not exported by the package): the AI SDK's mock model with
// scripted turns, and an agent served on real JSON-RPC and gRPC servers.
import type { A2AClient, TransportRegistry } from '@taskwire/client';
import { createClient, DEFAULT_TRANSPORTS } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import type { Agent, AgentCard, Message, TaskServiceOptions, TaskStore } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import type { GrpcServerHandle } from '@taskwire/server-grpc';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import type { A2AServer } from '@taskwire/server-http';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

/** One chunk of a language model's stream (the provider spec's stream part), loosely typed for scripts. */
export type Chunk = Record<string, unknown> & { type: string };
/** The prompt the SDK gave the model on one call. */
export type Prompt = MockLanguageModelV4['doStreamCalls'][number]['prompt'];

export const USAGE = {
  inputTokens: { total: 11, noCache: 11, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};

/** Text deltas of one text block. */
export function text(...deltas: string[]): Chunk[] {
  return [{ type: 'text-start', id: 't' }, ...deltas.map((delta) => ({ type: 'text-delta', id: 't', delta })), { type: 'text-end', id: 't' }];
}

/** A reasoning block. */
export function reasoning(delta: string): Chunk[] {
  return [{ type: 'reasoning-start', id: 'r' }, { type: 'reasoning-delta', id: 'r', delta }, { type: 'reasoning-end', id: 'r' }];
}

/** A tool call with `input`. */
export function toolCall(toolName: string, input: unknown, toolCallId = `call-${toolName}`): Chunk {
  return { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
}

/** The end of a model call. */
export function finish(reason: 'stop' | 'tool-calls' = 'stop'): Chunk {
  return { type: 'finish', finishReason: { unified: reason, raw: undefined }, usage: USAGE };
}

/** The last message of a prompt. */
export function lastOf(prompt: Prompt): Prompt[number] {
  return prompt[prompt.length - 1]!;
}

/** The outputs of the tool results in the prompt's last message (a tool message), as JSON values. */
export function toolOutputs(prompt: Prompt): unknown[] {
  const last = lastOf(prompt);
  if (last.role !== 'tool') return [];
  return last.content.flatMap((part) => (part.type === 'tool-result' ? [(part.output as { value?: unknown }).value] : []));
}

/**
 * A mock model (`ai/test`) whose every call streams the chunks `script`
 * returns for its prompt and call number (from 0), `delayMs` apart.
 */
export function scriptedModel(script: (prompt: Prompt, call: number) => Chunk[], delayMs: number | null = null): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    modelId: 'mock-model',
    // The model takes URLs itself (the SDK would download them otherwise).
    supportedUrls: { '*/*': [/^https:\/\//] },
    doStream: async ({ prompt }) => ({
      stream: simulateReadableStream({ chunks: script(prompt, calls++) as never[], chunkDelayInMs: delayMs, initialDelayInMs: null }),
    }),
  });
}

/** A user message with a fresh id. */
export function userMessage(textOrParts: string | Message['parts'], extra: Partial<Message> = {}): Message {
  const parts = typeof textOrParts === 'string' ? [{ text: textOrParts }] : textOrParts;
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, ...extra };
}

/** A card for a test agent; the servers fill in the interfaces. */
export function testCard(name: string, streaming = true): AgentCard {
  return {
    name,
    description: `The ${name} test agent`,
    supportedInterfaces: [],
    version: '0.0.1',
    capabilities: { streaming, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'talk', name: 'Talk', description: 'Talks', tags: ['test'] }],
  };
}

/** The transports of the tests: the defaults and gRPC. */
export const TRANSPORTS: TransportRegistry = { ...DEFAULT_TRANSPORTS, GRPC: (t) => grpcTransport({ url: t.url }) };

/** The bindings the end-to-end tests run over. */
export const BINDINGS = ['JSONRPC', 'GRPC'] as const;

/** An agent served on JSON-RPC/HTTP+JSON (one HTTP server) and gRPC, its card listing both. */
export interface Served {
  readonly service: TaskService;
  readonly store: TaskStore;
  readonly http: A2AServer;
  readonly grpc: GrpcServerHandle;
  /** A client that talks to it over `binding` (closed with the servers). */
  client(binding: string): Promise<A2AClient>;
  close(): Promise<void>;
}

/** Serves `agent` on real servers at 127.0.0.1 (free ports). */
export async function serve(agent: Agent, card: AgentCard, options: Partial<TaskServiceOptions> = {}): Promise<Served> {
  const store = options.store ?? createMemoryTaskStore();
  const service = new TaskService({ ...options, store, agent, card });
  const grpc = await serveGrpc({ service });
  const http = await serveA2A({ service, card: (base) => ({ ...card, supportedInterfaces: [...httpInterfaces(base), grpcInterface(grpc.url)] }) });
  const clients: A2AClient[] = [];
  return {
    service,
    store,
    http,
    grpc,
    async client(binding) {
      const client = await createClient(http.url, { preferred: [binding], transports: TRANSPORTS });
      if (client.interface?.protocolBinding !== binding) throw new Error(`createClient picked ${client.interface?.protocolBinding}, not ${binding}`);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await http.close();
      await grpc.close(0);
      await service.close();
    },
  };
}
