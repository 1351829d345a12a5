import type { TransportRegistry } from './agent-card.js';
import { withBearerToken } from './auth/bearer-transport.js';
import { httpJsonTransport } from './transport/http-json.js';
import { jsonRpcTransport } from './transport/json-rpc.js';
import { jsonRpcV03Transport } from './transport/json-rpc-v03.js';

/**
 * The transports `createClient` knows without being told: JSON-RPC (v1.0,
 * v1.1 and v0.3 for agents that speak it) and HTTP+JSON (v1.0, v1.1) over `fetch`
 * (browsers and Node), each sending the target's bearer token when
 * `createClient` was given `auth`, and keeping redirects within the
 * target's `trustedOrigins`. gRPC and WebSocket are added
 * by registering their factories from `@taskwire/client/grpc` and
 * `@taskwire/client/ws`.
 */
export const DEFAULT_TRANSPORTS: TransportRegistry = {
  JSONRPC: (t) => withBearerToken((t.version === '0.3' ? jsonRpcV03Transport : jsonRpcTransport)({ url: t.url, fetch: t.fetch, headers: t.headers, trustedOrigins: t.trustedOrigins }), t.token),
  'HTTP+JSON': (t) =>
    t.version !== '0.3' ? withBearerToken(httpJsonTransport({ url: t.url, tenant: t.tenant, fetch: t.fetch, headers: t.headers, trustedOrigins: t.trustedOrigins }), t.token) : undefined,
};
