import type { AuthPolicy } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import type { A2AServer } from '../src/index.js';
import { serveA2A } from '../src/index.js';

/** One SSE event as a browser's EventSource would see it: its `id:` and parsed `data:`. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly data: Record<string, unknown>;
}

/** A JSON-RPC answer: HTTP status, headers and parsed body. */
export interface RpcAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/**
 * The reference agent (memory store) served by `serveA2A` on a free port,
 * with plain-`fetch` helpers that send requests exactly as the seed
 * clients do: v0.3 method names and shapes, no `A2A-Version` header.
 */
export class SeedServer {
  private constructor(
    readonly service: TaskService,
    readonly server: A2AServer,
  ) {}

  static async start(auth?: AuthPolicy): Promise<SeedServer> {
    const card = referenceAgentCard([{ url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
    const server = await serveA2A({ service, port: 0, host: '127.0.0.1', ...(auth && { auth }) });
    return new SeedServer(service, server);
  }

  get endpoint(): string {
    return `${this.server.url}/a2a/jsonrpc`;
  }

  /** POSTs one JSON-RPC request and parses the JSON answer. */
  async rpc(method: string, params: unknown, headers: Record<string, string> = {}, id: string | number = crypto.randomUUID()): Promise<RpcAnswer> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  }

  /** The `result` of a successful call; throws with the JSON-RPC error otherwise. */
  async result(method: string, params: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
    const answer = await this.rpc(method, params, headers);
    if (answer.status !== 200 || !('result' in answer.body)) throw new Error(`${method} failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.result as Record<string, unknown>;
  }

  /** The JSON-RPC `error` of a failing call; throws when it succeeded. */
  async error(method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ code: number; message: string; data?: unknown }> {
    const answer = await this.rpc(method, params, headers);
    if (!('error' in answer.body)) throw new Error(`${method} succeeded, expected an error: ${JSON.stringify(answer.body)}`);
    return answer.body.error as { code: number; message: string };
  }

  /**
   * POSTs a streaming request with `Accept: text/event-stream` and reads the
   * SSE answer to its end (the server closes it after the final event). A
   * JSON answer (a refused call) is returned as a single event.
   */
  async stream(method: string, params: unknown, headers: Record<string, string> = {}, id: string | number = 1): Promise<{ status: number; contentType: string | null; events: SseEvent[] }> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
    const contentType = response.headers.get('content-type');
    const text = await response.text();
    // A call refused before its first event is answered with a plain JSON-RPC error.
    const events = contentType?.startsWith('text/event-stream') ? parseSse(text) : [{ id: undefined, data: JSON.parse(text) as Record<string, unknown> }];
    return { status: response.status, contentType, events };
  }

  async close(): Promise<void> {
    await this.server.close();
    await this.service.close();
  }
}

/** Parses a complete `text/event-stream` body into its events (comments and heartbeats skipped). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) events.push({ id, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
  }
  return events;
}

/** A v0.3 user message as the seed clients build it. */
export function v03UserMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { role: 'user', parts: [{ kind: 'text', text }], kind: 'message', messageId: crypto.randomUUID(), ...extra };
}

/** The text of the first text part of a v0.3 message or artifact. */
export function firstText(holder: unknown): string | undefined {
  const parts = (holder as { parts?: { kind?: string; text?: string }[] } | undefined)?.parts;
  return parts?.find((p) => p.kind === 'text')?.text;
}
