import type { TelemetrySetting } from '@taskwire/core';
import { RPC_SYSTEM, TaskService, createMemoryTaskStore } from '@taskwire/core';
import { A2AClient, httpJsonTransport, jsonRpcTransport } from '@taskwire/client';
import { wsTransport } from '@taskwire/client/ws';
import { referenceAgent } from '@taskwire/reference-agent';
import { serveGrpc } from '@taskwire/server-grpc';
import { grpcTransport } from '@taskwire/server-grpc/client';
import { serveA2A } from '@taskwire/server-http';
import { serveWebSocket, WS_PROTOCOL_BINDING } from '@taskwire/server-ws';
import type { Transport } from '@taskwire/core';
import { SUITE_CARD } from '../harness.js';

/** A traced service behind one wire, and a traced client on the other end. */
export interface TracedPair {
  readonly service: TaskService;
  readonly client: A2AClient;
  close(): Promise<void>;
}

/** One wire under test: its `rpc.system`, and how to serve a service on it and connect a client. */
export interface Wire {
  readonly name: string;
  readonly system: string;
  open(telemetry: TelemetrySetting): Promise<TracedPair>;
}

type Served = { transport: Transport; url: string; binding: string; stop: () => Promise<void> };

function wire(name: string, system: string, serve: (service: TaskService) => Promise<Served>): Wire {
  return {
    name,
    system,
    async open(telemetry) {
      const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card: SUITE_CARD, telemetry });
      const served = await serve(service);
      const client = new A2AClient(served.transport, {
        card: SUITE_CARD,
        interface: { url: served.url, protocolBinding: served.binding, protocolVersion: '1.0' },
        telemetry,
      });
      return {
        service,
        client,
        async close() {
          await client.close();
          await served.stop();
          await service.close();
        },
      };
    },
  };
}

/** JSON-RPC, HTTP+JSON, gRPC and WebSocket, each on a real server on 127.0.0.1. */
export const WIRES: readonly Wire[] = [
  wire('JSON-RPC', RPC_SYSTEM.jsonRpc, async (service) => {
    const server = await serveA2A({ service });
    const url = `${server.url}/a2a/jsonrpc`;
    return { transport: jsonRpcTransport({ url }), url, binding: 'JSONRPC', stop: () => server.close() };
  }),
  wire('HTTP+JSON', RPC_SYSTEM.httpJson, async (service) => {
    const server = await serveA2A({ service });
    const url = `${server.url}/a2a/rest`;
    return { transport: httpJsonTransport({ url }), url, binding: 'HTTP+JSON', stop: () => server.close() };
  }),
  wire('gRPC', RPC_SYSTEM.grpc, async (service) => {
    const server = await serveGrpc({ service });
    const transport = grpcTransport({ url: server.url });
    // The client closes its transport.
    return { transport, url: server.url, binding: 'GRPC', stop: () => server.close() };
  }),
  wire('WebSocket', RPC_SYSTEM.webSocket, async (service) => {
    const server = await serveWebSocket({ service });
    const transport = wsTransport({ url: server.url });
    return { transport, url: server.url, binding: WS_PROTOCOL_BINDING, stop: () => server.close() };
  }),
];
