import { httpJsonTransport, jsonRpcTransport, jsonRpcV03Transport } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import { wsTransport } from '@taskwire/client/ws';
import type { Transport } from '@taskwire/core';
import type { AgentUrls } from './agent-process.js';

/** The wires a Taskwire server speaks (v0.3 is the JSON-RPC endpoint spoken in A2A 0.3). */
export type Binding = 'JSON-RPC' | 'HTTP+JSON' | 'gRPC' | 'WebSocket' | 'JSON-RPC v0.3';

/** The four v1.0 bindings. */
export const BINDINGS: readonly Binding[] = ['JSON-RPC', 'HTTP+JSON', 'gRPC', 'WebSocket'];

/** A client transport that can always be closed. */
export type ClosableTransport = Transport & { close(): Promise<void> };

/**
 * Our client transport for `binding`, pointed at `urls`, sending `headers`
 * (an API key) with every call (the WebSocket one with its upgrade).
 * WebSocket reconnects are slowed down so a dead server is not hammered.
 */
export function connectTransport(binding: Binding, urls: AgentUrls, headers: Record<string, string> = {}): ClosableTransport {
  const closable = (transport: Transport): ClosableTransport => ({
    unary: transport.unary.bind(transport),
    stream: transport.stream.bind(transport),
    close: async () => transport.close?.(),
  });
  switch (binding) {
    case 'JSON-RPC':
      return closable(jsonRpcTransport({ url: urls.jsonRpc, headers }));
    case 'JSON-RPC v0.3':
      return closable(jsonRpcV03Transport({ url: urls.jsonRpc, headers }));
    case 'HTTP+JSON':
      return closable(httpJsonTransport({ url: urls.rest, headers }));
    case 'gRPC':
      return grpcTransport({ url: urls.grpc, metadata: headers });
    case 'WebSocket':
      return wsTransport({ url: urls.ws, headers, retryDelayMs: () => 1_000 });
  }
}

/** One transport per binding, closed together. */
export class TransportSet {
  readonly all: ReadonlyMap<Binding, ClosableTransport>;

  constructor(urls: AgentUrls, bindings: readonly Binding[] = BINDINGS, headers: Record<string, string> = {}) {
    this.all = new Map(bindings.map((binding) => [binding, connectTransport(binding, urls, headers)]));
  }

  /** The transport of `binding`. */
  get(binding: Binding): ClosableTransport {
    const transport = this.all.get(binding);
    if (!transport) throw new Error(`no ${binding} transport in this set`);
    return transport;
  }

  /** Closes every transport (connections, reconnect loops). */
  async close(): Promise<void> {
    await Promise.all([...this.all.values()].map((t) => t.close().catch(() => undefined)));
  }
}
