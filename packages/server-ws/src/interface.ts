import type { AgentInterface } from '@taskwire/core';
import { WS_PROTOCOL_BINDING } from '@taskwire/core';

export { WS_PROTOCOL_BINDING };

/**
 * The agent card entry of a WebSocket endpoint, for `supportedInterfaces`:
 * `url` is the endpoint's `ws://` or `wss://` URL; the binding is
 * {@link WS_PROTOCOL_BINDING} (tRPC messages over WebSocket, v1.0 wire
 * shapes, A2A errors in the tRPC error's `data.a2a`).
 */
export function wsInterface(url: string, options: { tenant?: string } = {}): AgentInterface {
  return { url, protocolBinding: WS_PROTOCOL_BINDING, protocolVersion: '1.0', ...(options.tenant && { tenant: options.tenant }) };
}
