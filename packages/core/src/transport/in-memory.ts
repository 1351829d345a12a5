import type { ParamsOf, ResultOf, StreamMethodName, UnaryMethodName } from '../methods.js';
import type { CallContext, StreamEvent } from '../calls.js';
import type { TaskService } from '../service/task-service.js';
import type { CallOptions, Transport } from './transport.js';
import { ExtensionActivation, parseExtensionsHeader } from '../extensions.js';

/** The call context of one call: the transport's, with the extensions the call asks for (`headers['a2a-extensions']`) and its `headers['idempotency-key']`. */
function callContext(context: Omit<CallContext, 'signal'>, options: CallOptions | undefined, signal: AbortSignal | undefined): CallContext {
  const asked = parseExtensionsHeader(options?.headers?.['a2a-extensions']);
  const extensions = asked ?? context.extensions;
  const idempotencyKey = options?.headers?.['idempotency-key'] ?? context.idempotencyKey;
  return { ...context, signal, extensions, activation: extensions?.length ? new ExtensionActivation(extensions) : undefined, idempotencyKey };
}

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
 * its caller (principal, tenant); a call's `headers['a2a-extensions']`
 * asks for extensions, whose activation `onExtensions` receives. Use it to drive the service without a
 * network, in tests or in an embedding host.
 */
export function inMemoryTransport(service: TaskService, context: Omit<CallContext, 'signal'> = {}): Transport {
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      const call = callContext(context, options, withTimeout(options));
      const result = await service.unary(method, wire(params), call);
      options?.onExtensions?.([...(call.activation?.seal() ?? [])]);
      return wire(result);
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      const call = callContext(context, options, withTimeout(options));
      const events = await service.stream(method, wire(params), call);
      options?.onExtensions?.([...(call.activation?.seal() ?? [])]);
      for await (const event of events) yield wire(event);
    },
  };
}
