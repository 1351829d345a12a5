// Test support for this package's tests (not part of the published API).
import type { Agent, AgentCard, Message } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { A2AServer, ServeA2AOptions } from './serve.js';
import { serveA2A } from './serve.js';

/** The reference agent's card, with streaming. */
export const CARD: AgentCard = referenceAgentCard([{ url: 'memory://test', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);

/** A service (reference agent by default) served on a free port; `close` stops both. */
export interface TestServer extends A2AServer {
  readonly service: TaskService;
  /** JSON-RPC endpoint URL. */
  readonly rpcUrl: string;
  /** HTTP+JSON base URL. */
  readonly restUrl: string;
}

/** Starts a server for a test. */
export async function startServer(
  options: Partial<Omit<ServeA2AOptions, 'card'>> & { agent?: Agent; card?: AgentCard | ((url: string) => AgentCard); extendedCard?: AgentCard } = {},
): Promise<TestServer> {
  const { agent, card, extendedCard, ...serve } = options;
  const serviceCard = typeof card === 'object' ? card : CARD;
  const service = new TaskService({ store: createMemoryTaskStore(), agent: agent ?? referenceAgent, card: serviceCard, extendedCard });
  const server = await serveA2A({ service, ...serve, ...(typeof card === 'function' && { card }) });
  return {
    ...server,
    service,
    rpcUrl: `${server.url}${serve.jsonRpcPath ?? '/a2a/jsonrpc'}`,
    restUrl: `${server.url}${serve.restPath ?? '/a2a/rest'}`,
    close: async () => {
      await server.close();
      await service.close();
    },
  };
}

/** A user message. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** POSTs a JSON-RPC body (object or array) with A2A-Version 1.0 unless headers say otherwise. */
export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Calls one JSON-RPC method and resolves the parsed response object. */
export async function call(url: string, method: string, params: unknown, headers?: Record<string, string>): Promise<any> {
  const response = await rpc(url, { jsonrpc: '2.0', id: 1, method, params }, headers);
  return response.json();
}

/** One SSE frame, as written. */
export interface Frame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

function parseFrame(raw: string): Frame {
  const frame: Record<string, string> = {};
  for (const line of raw.split('\n')) {
    const colon = line.indexOf(':');
    const [field, value] = colon <= 0 ? [colon === 0 ? 'comment' : line, line.slice(colon + 1).trim()] : [line.slice(0, colon), line.slice(colon + 1).trim()];
    frame[field] = value;
  }
  return frame;
}

/** Yields the frames of an SSE body as they arrive (frames end with a blank line). */
export async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      buffer += decoder.decode(next.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        yield parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** Collects every data frame of an SSE response, parsed, with its id. */
export async function collect(response: Response): Promise<{ id: number; event: string | undefined; data: any }[]> {
  const out: { id: number; event: string | undefined; data: any }[] = [];
  for await (const frame of frames(response.body!)) {
    if (frame.data !== undefined) out.push({ id: Number(frame.id), event: frame.event, data: JSON.parse(frame.data) });
  }
  return out;
}

/** A promise with its resolver, for gates in test agents. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * An agent that reports `working`, then waits for `release` before it
 * completes; `started` resolves with the task id once it is working.
 */
export function gatedAgent(): { agent: Agent; started: Promise<string>; release: () => void; signals: AbortSignal[] } {
  const started = deferred<string>();
  const gate = deferred();
  const signals: AbortSignal[] = [];
  const agent: Agent = async (ctx) => {
    signals.push(ctx.signal);
    await ctx.working('waiting for the gate');
    started.resolve(ctx.task.id);
    await gate.promise;
    await ctx.complete('released');
  };
  return { agent, started: started.promise, release: () => gate.resolve(), signals };
}
