import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import type { ClosableTransport } from '@taskwire/reliability/support/transports';

/**
 * A client transport over several replicas: each call (unary or stream) goes
 * to the next transport in turn, as a round-robin load balancer without
 * sticky sessions would send it. `transports` may be a function, read at
 * each call (a restarted replica gets new transports). `close` closes the
 * transports there are then.
 */
export function roundRobin(transports: readonly Transport[] | (() => readonly Transport[])): ClosableTransport {
  const current = typeof transports === 'function' ? transports : () => transports;
  if (current().length === 0) throw new RangeError('roundRobin needs at least one transport');
  let turn = 0;
  const next = (): Transport => {
    const all = current();
    return all[turn++ % all.length]!;
  };
  return {
    unary: <M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> => next().unary(method, params, options),
    stream: <M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> => next().stream(method, params, options),
    close: async () => {
      await Promise.all(current().map((t) => t.close?.().catch(() => undefined)));
    },
  };
}

/**
 * `transport`, with every call made under `tenant` (its `params.tenant`), so
 * that tests sharing one database each see only their own tasks. `close`
 * does nothing: the transport underneath is shared.
 */
export function withTenant(transport: Transport, tenant: string): ClosableTransport {
  return {
    unary: <M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions) => transport.unary(method, { ...params, tenant }, options),
    stream: <M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions) => transport.stream(method, { ...params, tenant }, options),
    close: async () => {},
  };
}
