// Node-only: used by the CLI (and tests); the main entry never imports it.
import type { TransportFactory, TransportRegistry } from './agent-card.js';
import { withBearerToken } from './auth/bearer-transport.js';

/**
 * The Node-only transports whose optional peer dependencies are installed,
 * as factories for `createClient`: gRPC (`@taskwire/client/grpc`, needs
 * `@taskwire/server-grpc`) and WebSocket (`@taskwire/client/ws`, needs
 * `@trpc/client` and `ws`; registered once that module exports its binding
 * URI as `WS_PROTOCOL_BINDING`). Missing ones are left out.
 */
export async function nodeTransports(): Promise<TransportRegistry> {
  const registry: Record<string, TransportFactory> = {};
  try {
    const { grpcTransport } = await import('./grpc.js');
    registry.GRPC = (t) => (t.version !== '0.3' ? withBearerToken(grpcTransport({ url: t.url, ...(t.headers && { metadata: t.headers }) }), t.token) : undefined);
  } catch {
    // @taskwire/server-grpc is not installed: gRPC interfaces are skipped.
  }
  try {
    const ws = await import('./ws.js');
    const binding = (ws as Record<string, unknown>).WS_PROTOCOL_BINDING;
    if (typeof binding === 'string') {
      registry[binding] = (t) => (t.version !== '0.3' ? ws.wsTransport({ url: t.url, ...(t.headers && { headers: t.headers }), ...(t.token && { token: t.token }) }) : undefined);
    }
  } catch {
    // @trpc/client or ws is not installed: WebSocket interfaces are skipped.
  }
  return registry;
}
