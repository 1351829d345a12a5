import type { CallOptions, ParamsOf, ResultOf, StreamEvent, StreamMethodName, StreamResponse, Transport, UnaryMethodName } from '@taskwire/core';
import { A2AError, errorFromWire } from '@taskwire/core';
import type { FetchTransportOptions } from './sse.js';
import { isEventStream, parseSse, readJson, send, sequenceOf } from './sse.js';

/** Options of {@link jsonRpcTransport}: `url` is the JSON-RPC endpoint (e.g. `https://agent.example/a2a/jsonrpc`). */
export type JsonRpcTransportOptions = FetchTransportOptions;

interface JsonRpcAnswer {
  readonly result?: unknown;
  readonly error?: { readonly code?: number; readonly message?: string; readonly data?: unknown };
}

function answerOf(value: unknown, url: string): JsonRpcAnswer {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !('result' in value || 'error' in value)) {
    throw new A2AError('Internal', `The agent at ${url} did not answer with a JSON-RPC response object`);
  }
  return value as JsonRpcAnswer;
}

function resultOf(answer: JsonRpcAnswer): unknown {
  if (answer.error) throw errorFromWire({ code: answer.error.code, message: answer.error.message, details: answer.error.data });
  return answer.result;
}

/**
 * The JSON-RPC 2.0 binding over `fetch`: each call POSTs `{jsonrpc, id,
 * method, params}` with `A2A-Version: 1.0`; stream operations read the SSE
 * answer, whose `id:` becomes each event's `sequence`. A SubscribeToTask
 * `afterSequence` is sent as `Last-Event-ID`. JSON-RPC errors are thrown as
 * A2AErrors rebuilt from `{code, message, data}`. Breaking out of a stream
 * closes its connection (the task keeps running).
 */
export function jsonRpcTransport(options: JsonRpcTransportOptions): Transport {
  let nextId = 0;
  const post = (method: string, params: unknown, call: CallOptions | undefined, headers: Record<string, string>) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params });
    return send(options, options.url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }, call);
  };
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): Promise<ResultOf<M>> {
      const response = await post(method, params, call, { accept: 'application/json' });
      return resultOf(answerOf(await readJson(response, options.url), options.url)) as ResultOf<M>;
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, call?: CallOptions): AsyncIterable<StreamEvent> {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      let sent: unknown = params;
      if (method === 'SubscribeToTask') {
        const { afterSequence, ...rest } = params as ParamsOf<'SubscribeToTask'>;
        if (afterSequence !== undefined) headers['last-event-id'] = String(afterSequence);
        sent = rest;
      }
      const response = await post(method, sent, call, headers);
      if (!isEventStream(response) || !response.body) {
        resultOf(answerOf(await readJson(response, options.url), options.url));
        throw new A2AError('Internal', `The agent at ${options.url} answered ${method} without an event stream`);
      }
      for await (const message of parseSse(response.body)) {
        const answer = answerOf(JSON.parse(message.data), options.url);
        yield { sequence: sequenceOf(message.id), response: resultOf(answer) as StreamResponse };
      }
    },
  };
}
