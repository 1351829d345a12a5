import type { CallOptions, MethodName, ParamsOf, ResultOf, StreamEvent, StreamMethodName, StreamResponse, Transport, UnaryMethodName } from '@taskwire/core';
import { A2AError, errorFromWire, METHODS } from '@taskwire/core';
import type { FetchTransportOptions } from './sse.js';
import { isEventStream, parseSse, readJson, send, sequenceOf } from './sse.js';

/** Options of {@link httpJsonTransport}: `url` is the binding's base URL (e.g. `https://agent.example/a2a/rest`). */
export interface HttpJsonTransportOptions extends FetchTransportOptions {
  /** The tenant every call is made under (the `/{tenant}` path prefix); a call's own `params.tenant` wins. */
  readonly tenant?: string;
}

/** The request of one call: the route of the method table with its path parameters filled in. */
interface RestCall {
  readonly verb: string;
  readonly path: string;
  readonly body: string | undefined;
  readonly headers: Record<string, string>;
}

function toQuery(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) search.append(name, String(item));
    else if (typeof value === 'object') throw new A2AError('InvalidParams', `${name} is an object and cannot be sent as a query parameter`);
    else search.set(name, String(value));
  }
  const query = search.toString();
  return query ? `?${query}` : '';
}

/** Builds the request of `method` from the method table's route (§11.3): path parameters, tenant prefix, query or body. */
function restCall(method: MethodName, params: Record<string, unknown>, defaultTenant: string | undefined): RestCall {
  const route = METHODS[method].rest;
  const { tenant = defaultTenant, ...rest } = params as { tenant?: string } & Record<string, unknown>;
  const headers: Record<string, string> = {};
  if (method === 'SubscribeToTask' && rest.afterSequence !== undefined) {
    headers['last-event-id'] = String(rest.afterSequence);
    delete rest.afterSequence;
  }
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = rest[name];
    if (typeof value !== 'string' || value === '') {
      throw new A2AError('InvalidParams', `Invalid parameters: ${name}: ${method} needs a non-empty ${name} (it is part of the path)`);
    }
    delete rest[name];
    return encodeURIComponent(value);
  });
  const prefix = tenant ? `/${encodeURIComponent(tenant)}` : '';
  if (route.paramsIn === 'query') return { verb: route.verb, path: `${prefix}${path}${toQuery(rest)}`, body: undefined, headers };
  headers['content-type'] = 'application/a2a+json';
  return { verb: route.verb, path: `${prefix}${path}`, body: JSON.stringify(rest), headers };
}

/** The A2AError of an AIP-193 error body `{error: {code, status, message, details}}`. */
function errorOf(body: unknown, response: Response, url: string): A2AError {
  const error = (body as { error?: { message?: string; details?: unknown } } | null)?.error;
  if (typeof error !== 'object' || error === null) {
    return new A2AError('Internal', `The agent at ${url} answered HTTP ${response.status} without an error body`);
  }
  return errorFromWire({ message: error.message, details: error.details });
}

/**
 * The HTTP+JSON (REST) binding over `fetch`: every operation goes to its
 * route of the method table (`POST /message:send`, `GET /tasks/{id}`, ...),
 * under `/{tenant}` when a tenant is set, with `A2A-Version: 1.0`. GET and
 * DELETE params travel as camelCase query parameters; the others as an
 * `application/a2a+json` body. Streams read SSE (`id:` → `sequence`); a
 * SubscribeToTask `afterSequence` is sent as `Last-Event-ID`. AIP-193 error
 * bodies are thrown as A2AErrors.
 */
export function httpJsonTransport(options: HttpJsonTransportOptions): Transport {
  const base = options.url.replace(/\/+$/, '');
  const call = async (method: MethodName, params: unknown, callOptions: CallOptions | undefined, accept: string) => {
    const request = restCall(method, { ...(params as Record<string, unknown>) }, options.tenant);
    const url = `${base}${request.path}`;
    const response = await send(options, url, { method: request.verb, body: request.body, headers: { accept, ...request.headers } }, callOptions);
    return { response, url };
  };
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, callOptions?: CallOptions): Promise<ResultOf<M>> {
      const { response, url } = await call(method, params, callOptions, 'application/a2a+json, application/json');
      if (response.status === 204) return {} as ResultOf<M>;
      const body = await readJson(response, url);
      if (!response.ok) throw errorOf(body, response, url);
      return body as ResultOf<M>;
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, callOptions?: CallOptions): AsyncIterable<StreamEvent> {
      const { response, url } = await call(method, params, callOptions, 'text/event-stream');
      if (!response.ok || !isEventStream(response) || !response.body) {
        const body = await readJson(response, url);
        if (!response.ok) throw errorOf(body, response, url);
        throw new A2AError('Internal', `The agent at ${url} answered ${method} without an event stream`);
      }
      for await (const message of parseSse(response.body)) {
        const body = JSON.parse(message.data) as unknown;
        if (message.event === 'error') throw errorOf(body, response, url);
        yield { sequence: sequenceOf(message.id), response: body as StreamResponse };
      }
    },
  };
}
