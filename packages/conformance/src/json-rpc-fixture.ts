import { jsonRpcTransport } from '@taskwire/client';
import { apiKeyAuth } from '@taskwire/core';
import { serveA2A } from '@taskwire/server-http';
import type { TransportFixture } from './harness.js';

/** JSON-RPC 2.0 + SSE over a real node:http server on a free port; a caller becomes an x-api-key. */
export const jsonRpcFixture: TransportFixture = {
  name: 'JSON-RPC',
  async connect(service, caller) {
    const key = caller && `key-${caller.principalId}`;
    const auth = key ? { authenticate: apiKeyAuth({ [key]: caller.principalId }) } : undefined;
    const server = await serveA2A({ service, auth });
    const transport = jsonRpcTransport({ url: `${server.url}/a2a/jsonrpc`, headers: key ? { 'x-api-key': key } : {} });
    return { transport, close: () => server.close() };
  },
};
