import { createClient, DEFAULT_TRANSPORTS } from '@taskwire/client';
import type { TransportRegistry } from '@taskwire/client';
import { grpcTransport } from '@taskwire/client/grpc';
import { wsTransport } from '@taskwire/client/ws';
import { apiKeyAuth } from '@taskwire/core';
import { grpcInterface, serveGrpc } from '@taskwire/server-grpc';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { attachWebSocket, WS_PROTOCOL_BINDING, wsInterface } from '@taskwire/server-ws';
import type { TransportFixture } from './harness.js';
import { NOT_PROTOJSON_ON_GRPC, notProtoJson } from './requirements/protojson.js';
import { runConformance } from './suite.js';

const TRANSPORTS: TransportRegistry = {
  ...DEFAULT_TRANSPORTS,
  GRPC: (t) => grpcTransport({ url: t.url, ...(t.headers && { metadata: t.headers }) }),
  [WS_PROTOCOL_BINDING]: (t) => wsTransport({ url: t.url, ...(t.headers && { headers: t.headers }) }),
};

/**
 * The whole `@taskwire/client` as the transport under test: the service is
 * served on every binding (HTTP: JSON-RPC, HTTP+JSON and WebSocket; gRPC on
 * its own port) and `createClient` reads the card and picks `binding`. Every
 * requirement then runs through the client's layers (tenant, interceptors,
 * retries, stream resumption, signals). A caller becomes an API key.
 */
function clientFixture(binding: string, name: string): TransportFixture {
  return {
    name: `@taskwire/client over ${name}`,
    async connect(service, caller) {
      const key = caller && `key-${caller.principalId}`;
      const auth = key ? { authenticate: apiKeyAuth({ [key]: caller.principalId }) } : undefined;
      const grpc = await serveGrpc({ service, ...(auth && { auth }) });
      const http = await serveA2A({
        service,
        ...(auth && { auth }),
        card: (base) => ({
          ...service.card!,
          supportedInterfaces: [...httpInterfaces(base), grpcInterface(grpc.url), wsInterface(`${base.replace(/^http/, 'ws')}/a2a/ws`)],
        }),
      });
      const ws = attachWebSocket({ service, server: http.server, ...(auth && { auth }) });
      // gRPC listens on its own port (another origin): the key may go there because this test says so.
      const client = await createClient(http.url, { preferred: [binding], transports: TRANSPORTS, trustedOrigins: [grpc.url], ...(key && { headers: { 'x-api-key': key } }) });
      if (client.interface?.protocolBinding !== binding) throw new Error(`createClient picked ${client.interface?.protocolBinding}, not ${binding}`);
      return {
        transport: client,
        async close() {
          await client.close();
          await ws.close();
          await http.close();
          await grpc.close();
        },
      };
    },
  };
}

for (const [binding, name] of [
  ['JSONRPC', 'JSON-RPC'],
  ['HTTP+JSON', 'HTTP+JSON'],
  ['GRPC', 'gRPC'],
  [WS_PROTOCOL_BINDING, 'WebSocket'],
] as const) {
  const notApplicable = binding === 'GRPC' ? notProtoJson(NOT_PROTOJSON_ON_GRPC) : {};
  runConformance(clientFixture(binding, name), { notApplicable });
  runConformance(clientFixture(binding, `${name}, authenticated`), { caller: { principalId: 'alice' }, notApplicable });
}
