import type { StreamMethodName, UnaryMethodName } from '@taskwire/core';
import { A2AError, METHODS, readProtoJsonParams, RPC_SYSTEM } from '@taskwire/core';
import type { DecodedCall, Dispatcher, StreamFraming } from './dispatch.js';
import type { HttpReply, HttpRequest } from './http-types.js';
import { header } from './http-types.js';
import { isObject, readJsonBody } from './json-body.js';
import type { ResolvedOptions } from './options.js';
import {
  A2A_JSON_TYPE,
  asA2AError,
  contentTypeError,
  errorHeaders,
  isJsonContentType,
  jsonReply,
  restErrorBody,
  UNSUPPORTED_MEDIA_TYPE,
} from './replies.js';
import { authenticate, callContextOf, extensionHeaders } from './request-context.js';
import type { RouteMatch } from './rest-routes.js';
import { resolveRoute } from './rest-routes.js';
import { queryParams } from './rest-params.js';
import { SSE_HEADERS } from './sse-stream.js';

/** HTTP+JSON streams send the bare StreamResponse; an error after the start is an `error` event with the AIP-193 body. */
const FRAMING: StreamFraming = {
  frame: (sequence, payload) => `id: ${sequence}\ndata: ${JSON.stringify(payload)}\n\n`,
  error: (error) => `event: error\ndata: ${JSON.stringify(restErrorBody(error))}\n\n`,
};

/**
 * The HTTP+JSON binding below one base path: the v1.0 routes of the method
 * table, each also under a `/{tenant}` prefix (which scopes the call to that
 * tenant). Bodies are `application/a2a+json` (`application/json` accepted);
 * GET and DELETE take camelCase query parameters; `:subscribe` works with
 * GET and POST. Errors are AIP-193 bodies `{error: {code, status, message,
 * details}}` with the error's HTTP status.
 */
export class RestEndpoint {
  constructor(
    private readonly options: ResolvedOptions,
    private readonly dispatcher: Dispatcher,
  ) {}

  /** Answers one HTTP request whose path is `subPath` below the binding's base path. */
  async handle(request: HttpRequest, subPath: string): Promise<HttpReply> {
    try {
      const route = resolveRoute(request.method, subPath);
      if ('allowed' in route) return this.miss(request.method, subPath, route.allowed);
      const pending = authenticate(request, this.options.auth);
      const principal = pending && (await pending);
      const context = callContextOf(request, principal, route.tenant);
      const call = { method: route.method, params: await this.params(route, request), context, legacy: context.version === '0.3', request, system: RPC_SYSTEM.httpJson };
      if (METHODS[route.method].kind === 'stream') {
        const stream = await this.dispatcher.stream(call as DecodedCall<StreamMethodName>, FRAMING);
        return { kind: 'stream', status: 200, headers: { ...SSE_HEADERS, ...extensionHeaders(context) }, stream };
      }
      const result = await this.dispatcher.unary(call as DecodedCall<UnaryMethodName>);
      return jsonReply(200, result, A2A_JSON_TYPE, extensionHeaders(context));
    } catch (error) {
      return this.fail(error);
    }
  }

  /** Params from the body (POST) or the query (GET, DELETE), with the path parameters on top. */
  private async params(route: RouteMatch, request: HttpRequest): Promise<Record<string, unknown>> {
    let params: Record<string, unknown>;
    if (request.method === 'POST') {
      const contentType = header(request.headers, 'content-type');
      if (!isJsonContentType(contentType)) throw contentTypeError(contentType!);
      const body = await readJsonBody(request, {});
      if (!isObject(body)) throw new A2AError('InvalidParams', `Invalid parameters: the body of ${route.method} must be a JSON object`);
      params = body;
    } else {
      params = queryParams(route.method, request.query);
    }
    if (Object.keys(route.pathParams).length === 0) return params;
    // Read the field names first, so that a path parameter wins over the same field under its proto name too.
    return { ...(readProtoJsonParams(route.method, params) as Record<string, unknown>), ...route.pathParams };
  }

  private miss(verb: string, subPath: string, allowed: readonly string[]): HttpReply {
    if (allowed.length === 0) {
      const error = new A2AError('MethodNotFound', `No A2A operation at ${verb} ${subPath}; the HTTP+JSON binding serves /message:send, /tasks/{id} and the other paths of A2A §11.3`);
      return this.fail(error);
    }
    const error = new A2AError('MethodNotFound', `${subPath} does not answer ${verb}; use ${allowed.join(' or ')}`);
    return this.fail(error, 405, { allow: allowed.join(', ') });
  }

  private fail(thrown: unknown, status?: number, headers?: Record<string, string>): HttpReply {
    const error = asA2AError(thrown, this.options.logger);
    const httpStatus = status ?? (error.kind === 'ContentTypeNotSupported' ? UNSUPPORTED_MEDIA_TYPE : error.httpStatus);
    return jsonReply(httpStatus, restErrorBody(error, httpStatus), A2A_JSON_TYPE, { ...errorHeaders(error, this.options.auth?.challenge), ...headers });
  }
}
