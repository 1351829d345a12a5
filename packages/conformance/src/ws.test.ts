import { wsTransport } from '@taskwire/client/ws';
import { apiKeyAuth } from '@taskwire/core';
import { serveWebSocket } from '@taskwire/server-ws';
import type { TransportFixture } from './harness.js';
import { runConformance } from './suite.js';

/**
 * A2A over WebSocket (tRPC over `ws`) on a real server on a free port. A
 * caller becomes an API key, sent as an upgrade header or, in the second
 * fixture, as tRPC connection params (the browser way).
 */
function wsFixture(name: string, via: 'headers' | 'connectionParams'): TransportFixture {
  return {
    name,
    async connect(service, caller) {
      const key = caller && `key-${caller.principalId}`;
      const auth = key ? { authenticate: apiKeyAuth({ [key]: caller.principalId }) } : undefined;
      const server = await serveWebSocket({ service, ...(auth && { auth }) });
      const credentials = key ? { [via]: { 'x-api-key': key } } : {};
      const transport = wsTransport({ url: server.url, ...credentials });
      return {
        transport,
        async close() {
          await transport.close();
          await server.close();
        },
      };
    },
  };
}

runConformance(wsFixture('WebSocket', 'headers'));
runConformance(wsFixture('WebSocket', 'headers'), { caller: { principalId: 'alice' } });
runConformance(wsFixture('WebSocket (connection params)', 'connectionParams'), { caller: { principalId: 'bob' } });
