/**
 * `@taskwire/client/ws`: the client transport of Taskwire's A2A WebSocket
 * binding (needs the optional peer dependencies `@trpc/client`, and `ws` on
 * Node 20), and the binding's `protocolBinding` URI to register it for.
 */
export { WS_PROTOCOL_BINDING } from '@taskwire/core';
export { DEFAULT_WS_CONNECT_TIMEOUT_MS, wsTransport } from './transport/ws.js';
export type { ConnectionParams, WebSocketClass, WsTransport, WsTransportOptions } from './transport/ws.js';
