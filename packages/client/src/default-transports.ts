import type { TransportRegistry } from './agent-card.js';
import { httpJsonTransport } from './transport/http-json.js';
import { jsonRpcTransport } from './transport/json-rpc.js';
import { jsonRpcV03Transport } from './transport/json-rpc-v03.js';

/**
 * The transports `createClient` knows without being told: JSON-RPC (v1.0,
 * and v0.3 for agents that speak it) and HTTP+JSON (v1.0) over `fetch`
 * (browsers and Node). gRPC and WebSocket are added
 * by registering their factories from `@taskwire/client/grpc` and
 * `@taskwire/client/ws`.
 */
export const DEFAULT_TRANSPORTS: TransportRegistry = {
  JSONRPC: (t) => (t.version === '1.0' ? jsonRpcTransport : jsonRpcV03Transport)({ url: t.url, fetch: t.fetch, headers: t.headers }),
  'HTTP+JSON': (t) =>
    t.version === '1.0' ? httpJsonTransport({ url: t.url, tenant: t.tenant, fetch: t.fetch, headers: t.headers }) : undefined,
};
