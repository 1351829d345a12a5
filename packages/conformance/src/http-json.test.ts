import { httpJsonTransport } from '@taskwire/client';
import { apiKeyAuth } from '@taskwire/core';
import { serveA2A } from '@taskwire/server-http';
import type { TransportFixture } from './harness.js';
import { runConformance } from './suite.js';

/** The HTTP+JSON binding (REST + SSE) over a real node:http server on a free port; a caller becomes an x-api-key. */
const httpJson: TransportFixture = {
  name: 'HTTP+JSON',
  async connect(service, caller) {
    const key = caller && `key-${caller.principalId}`;
    const auth = key ? { authenticate: apiKeyAuth({ [key]: caller.principalId }) } : undefined;
    const server = await serveA2A({ service, auth });
    const transport = httpJsonTransport({ url: `${server.url}/a2a/rest`, headers: key ? { 'x-api-key': key } : {} });
    return { transport, close: () => server.close() };
  },
};

runConformance(httpJson);
runConformance(httpJson, { caller: { principalId: 'alice' } });
