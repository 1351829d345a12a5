/**
 * @taskwire/server-http: A2A over HTTP. JSON-RPC 2.0 with SSE streams, the
 * HTTP+JSON binding, the agent card (v1.0; v0.3 discovery fields on request),
 * auth hooks and opt-in CORS, as a `node:http` server, node/Express
 * middleware, or a fetch handler.
 */
export { serveA2A } from './serve.js';
export type { A2AServer, HttpTimeouts, ServeA2AOptions } from './serve.js';
export { createA2AHandler } from './handler.js';
export type { A2AHandler } from './handler.js';
export { a2aFastify } from './fastify-plugin.js';
export type { A2AFastifyPlugin, FastifyInstanceLike } from './fastify-plugin.js';
export type { NodeHandler } from './node-host.js';
export type { FetchHandler } from './fetch-host.js';
export { HTTP_DEFAULTS } from './options.js';
export { HEALTH_DEFAULTS } from './health.js';
export type { HealthOptions } from './health.js';
export type { A2AHttpOptions } from './options.js';
export type { CardSource } from './public-card.js';
export { publicBaseUrl } from './public-url.js';
export { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from './cors.js';
export type { CorsOptions } from './cors.js';
export { httpInterfaces } from './agent-card.js';
export type { HttpInterfaceOptions } from './agent-card.js';
export type { CoreHandle, HeaderBag, HttpReply, HttpRequest, StreamReply, TextReply } from './http-types.js';
export { HEARTBEAT, SseStream } from './sse-stream.js';
