import { apiKeyAuth } from '@taskwire/core';
import { serveGrpc } from '@taskwire/server-grpc';
import { grpcTransport } from '@taskwire/server-grpc/client';
import type { TransportFixture } from './harness.js';
import { NOT_PROTOJSON_ON_GRPC, notProtoJson } from './requirements/protojson.js';
import { runConformance } from './suite.js';

/**
 * gRPC: the service behind `serveGrpc` on a free port, the client through
 * `grpcTransport`. A caller authenticates with an API key in metadata.
 */
const grpcFixture: TransportFixture = {
  name: 'gRPC',
  async connect(service, caller) {
    const key = caller && `key-${caller.principalId}`;
    const server = await serveGrpc({
      service,
      ...(caller && key && { auth: { authenticate: apiKeyAuth({ [key]: caller.principalId }) } }),
    });
    const transport = grpcTransport({ url: server.url, ...(key && { metadata: { 'x-api-key': key } }) });
    return {
      transport,
      async close() {
        await transport.close();
        await server.close();
      },
    };
  },
};

runConformance(grpcFixture, { notApplicable: notProtoJson(NOT_PROTOJSON_ON_GRPC) });
runConformance({ ...grpcFixture, name: 'gRPC with an authenticated caller' }, { caller: { principalId: 'alice' }, notApplicable: notProtoJson(NOT_PROTOJSON_ON_GRPC) });
