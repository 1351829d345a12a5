import type { CallOptions, MethodName, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import { METHODS, v03ResultToV1, v03StreamEventToV1, v1ParamsToV03 } from '@taskwire/core';
import type { JsonRpcTransportOptions } from './json-rpc.js';
import { jsonRpcTransport } from './json-rpc.js';

/** The v0.3 JSON-RPC name of an operation (`message/send`, `tasks/get`, ...). */
function v03Name(method: MethodName): string {
  const name = (METHODS[method] as { v03?: string }).v03;
  if (!name) throw new TypeError(`${method} has no A2A v0.3 JSON-RPC method`);
  return name;
}

/** The historyLength a call asked for (v0.3 cannot say 0, "no history": the transport trims instead). */
function requestedHistory(method: MethodName, params: unknown): number | undefined {
  const p = params as { historyLength?: number; configuration?: { historyLength?: number } };
  return method === 'GetTask' ? p.historyLength : method === 'SendMessage' ? p.configuration?.historyLength : undefined;
}

function withoutHistory<M extends UnaryMethodName>(method: M, result: ResultOf<M>): ResultOf<M> {
  if (method === 'GetTask') {
    const { history: _history, ...task } = result as ResultOf<'GetTask'>;
    return task as ResultOf<M>;
  }
  const sent = result as ResultOf<'SendMessage'>;
  if (!('task' in sent)) return result;
  const { history: _history, ...task } = sent.task;
  return { task } as ResultOf<M>;
}

/**
 * A client transport for agents that speak A2A v0.3 over JSON-RPC: the
 * JSON-RPC binding of {@link jsonRpcTransport} with v0.3 method names
 * (`message/send`, `tasks/resubscribe`, ...), `A2A-Version: 0.3`, and the
 * core v0.3 converters at both ends, so callers keep using v1.0 names and
 * shapes. `historyLength: 0` (no history; v0.3 reads 0 as "no limit") is
 * sent as unset and the history is trimmed from the answer. A
 * SubscribeToTask `afterSequence` is sent as a param (Taskwire servers
 * resume from it; other v0.3 servers ignore it).
 */
export function jsonRpcV03Transport(options: JsonRpcTransportOptions): Transport {
  // The 1.0 transport posts whatever method name it is given; names and shapes are v0.3 here.
  const inner = jsonRpcTransport({ ...options, headers: { 'a2a-version': '0.3', ...options.headers } });
  const raw = inner as unknown as {
    unary(method: string, params: unknown, call?: CallOptions): Promise<unknown>;
    stream(method: string, params: unknown, call?: CallOptions): AsyncIterable<StreamEvent>;
  };
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      const result = v03ResultToV1(method, await raw.unary(v03Name(method), v1ParamsToV03(method, params), call));
      return requestedHistory(method, params) === 0 ? withoutHistory(method, result) : result;
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      for await (const event of raw.stream(v03Name(method), v1ParamsToV03(method, params), call)) {
        yield { sequence: event.sequence, response: v03StreamEventToV1(event.response) };
      }
    },
    close: inner.close?.bind(inner),
  };
}
