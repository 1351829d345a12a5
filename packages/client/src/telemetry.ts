import type { CallOptions, ClientCallTarget, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Telemetry, Transport, UnaryMethodName } from '@taskwire/core';
import { RPC_SYSTEM, startClientCall, WS_PROTOCOL_BINDING } from '@taskwire/core';

/** The `rpc.system` of a card interface's protocol binding. */
export function rpcSystemOf(protocolBinding: string | undefined): string | undefined {
  switch (protocolBinding) {
    case 'JSONRPC':
      return RPC_SYSTEM.jsonRpc;
    case 'HTTP+JSON':
      return RPC_SYSTEM.httpJson;
    case 'GRPC':
      return RPC_SYSTEM.grpc;
    case WS_PROTOCOL_BINDING:
      return RPC_SYSTEM.webSocket;
    default:
      return undefined;
  }
}

function withHeaders(options: CallOptions | undefined, headers: Record<string, string>): CallOptions {
  return { ...options, headers: { ...options?.headers, ...headers } };
}

/**
 * `transport` with a CLIENT span and `rpc.client.duration` around every
 * call (see core's `startClientCall`): the trace headers (`traceparent`,
 * `tracestate`) go out with the call's headers, so the server's spans and
 * the agent run join the caller's trace. A stream's span lasts until the
 * stream ends. With telemetry off, `transport` itself; with no tracer and
 * no meter registered, calls pass straight through.
 */
export function withTelemetry(transport: Transport, telemetry: Telemetry, target: ClientCallTarget): Transport {
  if (!telemetry.enabled) return transport;
  return {
    unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      const call = startClientCall(telemetry, method, params, target);
      if (!call) return transport.unary(method, params, options);
      return transport.unary(method, params, withHeaders(options, call.headers)).then(
        (result) => {
          call.ok(result);
          return result;
        },
        (error: unknown) => {
          call.fail(error);
          throw error;
        },
      );
    },
    stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      const call = startClientCall(telemetry, method, params, target);
      if (!call) return transport.stream(method, params, options);
      return call.follow(transport.stream(method, params, withHeaders(options, call.headers)));
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}
