import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import type { ClosableTransport } from '@taskwire/reliability/support/transports';

/**
 * A transport that opens a new connection (`connect()`) for every call and
 * closes it when the call is over: behind a load balancer, each call of a
 * connection-bound wire (WebSocket) then lands on the next replica, as each
 * HTTP request or gRPC call does.
 */
export function perCall(connect: () => ClosableTransport): Transport {
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      const transport = connect();
      try {
        return await transport.unary(method, params, options);
      } finally {
        await transport.close();
      }
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncGenerator<StreamEvent> {
      const transport = connect();
      try {
        yield* transport.stream(method, params, options);
      } finally {
        await transport.close();
      }
    },
  };
}
