import type { ParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import type { CallContext, StreamEvent } from '../calls.js';
import type { TaskService } from '../service/task-service.js';
import type { CallOptions, Transport } from './transport.js';

/** A JSON round trip: what crosses a real wire (no shared objects, no undefined). */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function withTimeout(options: CallOptions | undefined): AbortSignal | undefined {
  const signals = [options?.signal, options?.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
}

/**
 * A transport that calls a {@link TaskService} in the same process, with
 * values passed through JSON as on a real wire. `context` gives every call
 * its caller (principal, tenant); use it to drive the service without a
 * network, in tests or in an embedding host.
 */
export function inMemoryTransport(service: TaskService, context: Omit<CallContext, 'signal'> = {}): Transport {
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      const signal = withTimeout(options);
      return wire(await service.unary(method, wire(params), { ...context, signal }));
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      const signal = withTimeout(options);
      const events = await service.stream(method, wire(params), { ...context, signal });
      for await (const event of events) yield wire(event);
    },
  };
}
