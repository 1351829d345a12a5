import type { MethodName, StreamMethodName, UnaryMethodName } from '@taskwire/core';
import { A2AError, findMethod, METHOD_NAMES, METHODS, RPC_SYSTEM } from '@taskwire/core';
import type { DecodedCall, Dispatcher, StreamFraming } from './dispatch.js';
import type { HttpReply, HttpRequest } from './http-types.js';
import { header } from './http-types.js';
import { isObject, readJsonBody } from './json-body.js';
import type { ResolvedOptions } from './options.js';
import {
  asA2AError,
  contentTypeError,
  emptyReply,
  errorHeaders,
  isJsonContentType,
  JSON_TYPE,
  jsonReply,
  jsonRpcError,
  UNSUPPORTED_MEDIA_TYPE,
} from './replies.js';
import type { HttpCallContext } from './request-context.js';
import { authenticate, callContextOf, extensionHeaders } from './request-context.js';
import { SSE_HEADERS } from './sse-stream.js';

type JsonRpcId = string | number | null;

/** A request object that passed the envelope checks. */
interface Envelope {
  readonly id: JsonRpcId;
  readonly notification: boolean;
  readonly method: MethodName;
  readonly params: unknown;
  readonly legacy: boolean;
}

/** A request object that did not: the error to answer, with the id it could be matched to. */
interface Refused {
  readonly id: JsonRpcId;
  readonly error: A2AError;
  /** Notifications are never answered, even when they fail. */
  readonly silent: boolean;
}

/** HTTP statuses of errors that concern the HTTP exchange itself; everything else is a 200 carrying a JSON-RPC error. */
const HTTP_STATUS_OF: Partial<Record<A2AError['kind'], number>> = {
  Unauthenticated: 401,
  PermissionDenied: 403,
  PayloadTooLarge: 413,
  ContentTypeNotSupported: UNSUPPORTED_MEDIA_TYPE,
};

const response = (id: JsonRpcId, result: unknown) => ({ jsonrpc: '2.0', id, result });
const errorResponse = (id: JsonRpcId, error: A2AError) => ({ jsonrpc: '2.0', id, error: jsonRpcError(error) });

/** The envelope checks of one JSON-RPC request object (JSON-RPC 2.0 §4). */
function envelope(message: unknown, context: HttpCallContext): Envelope | Refused {
  if (!isObject(message)) {
    return refuse(null, false, 'InvalidRequest', 'A JSON-RPC request must be an object with "jsonrpc": "2.0", "method", "params" and "id"');
  }
  const notification = !('id' in message);
  const id = message.id;
  if (!notification && typeof id !== 'string' && typeof id !== 'number' && id !== null) {
    return refuse(null, false, 'InvalidRequest', 'The request "id" must be a string, a number or null');
  }
  const replyId = (id ?? null) as JsonRpcId;
  if (message.jsonrpc !== '2.0') return refuse(replyId, false, 'InvalidRequest', 'The request must carry "jsonrpc": "2.0"');
  if (typeof message.method !== 'string') {
    return refuse(replyId, false, 'InvalidRequest', 'The request "method" must be a string naming an A2A operation, such as "SendMessage"');
  }
  const found = findMethod(message.method);
  if (!found) {
    return refuse(replyId, notification, 'MethodNotFound', `Method "${message.method}" does not exist; this agent serves ${METHOD_NAMES.join(', ')} (and their v0.3 names)`, {
      method: message.method,
    });
  }
  if (message.params !== undefined && !isObject(message.params)) {
    return refuse(replyId, notification, 'InvalidParams', 'Invalid parameters: "params" must be an object of named parameters');
  }
  return { id: replyId, notification, method: found.name, params: message.params, legacy: found.version === '0.3' || context.version === '0.3' };
}

function refuse(id: JsonRpcId, silent: boolean, kind: A2AError['kind'], message: string, metadata?: Record<string, string>): Refused {
  return { id, silent, error: new A2AError(kind, message, metadata) };
}

/** The id a request body would be answered under, before its envelope is checked. */
function idOf(body: unknown): JsonRpcId {
  const id = isObject(body) ? body.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function framing(id: JsonRpcId): StreamFraming {
  const head = `data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  return {
    frame: (sequence, payload) => `id: ${sequence}\n${head}${JSON.stringify(payload)}}\n\n`,
    error: (error) => `data: ${JSON.stringify(errorResponse(id, error))}\n\n`,
  };
}

/**
 * The JSON-RPC 2.0 binding on one path: every operation of the method table
 * by its v1.0 name (v0.3 names go through the v0.3 converters), batches,
 * notifications (no answer), and `text/event-stream` answers for the two
 * stream operations with each event wrapped as `{jsonrpc, id, result}`.
 *
 * Errors are JSON-RPC error objects `{code, message, data: details}` on an
 * HTTP 200, except those about the HTTP exchange itself: 401 (with
 * `WWW-Authenticate`), 405, 413 and 415.
 */
export class JsonRpcEndpoint {
  constructor(
    private readonly options: ResolvedOptions,
    private readonly dispatcher: Dispatcher,
  ) {}

  /** Answers one HTTP request to the JSON-RPC path. */
  async handle(request: HttpRequest): Promise<HttpReply> {
    if (request.method !== 'POST') {
      const error = new A2AError('InvalidRequest', `JSON-RPC requests are sent with POST (got ${request.method})`);
      return jsonReply(405, errorResponse(null, error), JSON_TYPE, { allow: 'POST' });
    }
    const contentType = header(request.headers, 'content-type');
    if (!isJsonContentType(contentType)) return this.fail(null, contentTypeError(contentType!));
    let body: unknown;
    let context: HttpCallContext;
    try {
      const pending = authenticate(request, this.options.auth);
      const principal = pending && (await pending);
      body = await readJsonBody(request);
      context = callContextOf(request, principal, undefined);
    } catch (error) {
      return this.fail(idOf(body), error);
    }
    return Array.isArray(body) ? this.batch(body, request, context) : this.single(body, request, context);
  }

  private async single(message: unknown, request: HttpRequest, context: HttpCallContext): Promise<HttpReply> {
    const checked = envelope(message, context);
    if ('error' in checked) return checked.silent ? emptyReply(204) : this.fail(checked.id, checked.error);
    const call = { method: checked.method, params: checked.params, context, legacy: checked.legacy, request, system: RPC_SYSTEM.jsonRpc };
    if (METHODS[checked.method].kind === 'stream') {
      if (checked.notification) return this.notifyStream(call as DecodedCall<StreamMethodName>);
      try {
        const stream = await this.dispatcher.stream(call as DecodedCall<StreamMethodName>, framing(checked.id));
        return { kind: 'stream', status: 200, headers: { ...SSE_HEADERS, ...extensionHeaders(context) }, stream };
      } catch (error) {
        return this.fail(checked.id, error);
      }
    }
    try {
      const result = await this.dispatcher.unary(call as DecodedCall<UnaryMethodName>);
      return checked.notification ? emptyReply(204) : jsonReply(200, response(checked.id, result), JSON_TYPE, extensionHeaders(context));
    } catch (error) {
      return checked.notification ? emptyReply(204) : this.fail(checked.id, error);
    }
  }

  private async batch(messages: unknown[], request: HttpRequest, context: HttpCallContext): Promise<HttpReply> {
    if (messages.length === 0) return this.fail(null, new A2AError('InvalidRequest', 'A JSON-RPC batch must contain at least one request'));
    const answers = await Promise.all(messages.map((message) => this.batchItem(message, request, context)));
    const replies = answers.filter((answer) => answer !== undefined);
    return replies.length === 0 ? emptyReply(204) : jsonReply(200, replies, JSON_TYPE, extensionHeaders(context));
  }

  /** One request of a batch: its response object, or undefined for a notification. */
  private async batchItem(message: unknown, request: HttpRequest, context: HttpCallContext): Promise<object | undefined> {
    const checked = envelope(message, context);
    if ('error' in checked) return checked.silent ? undefined : errorResponse(checked.id, checked.error);
    const call = { method: checked.method, params: checked.params, context, legacy: checked.legacy, request, system: RPC_SYSTEM.jsonRpc };
    if (METHODS[checked.method].kind === 'stream') {
      if (checked.notification) return void (await this.notifyStream(call as DecodedCall<StreamMethodName>));
      const error = new A2AError('InvalidRequest', `${checked.method} answers with a stream and cannot be part of a batch; send it as a single request`);
      return errorResponse(checked.id, error);
    }
    try {
      const result = await this.dispatcher.unary(call as DecodedCall<UnaryMethodName>);
      return checked.notification ? undefined : response(checked.id, result);
    } catch (error) {
      return checked.notification ? undefined : errorResponse(checked.id, asA2AError(error, this.options.logger));
    }
  }

  /** A stream operation sent as a notification: it takes effect (a message is sent), nothing is answered. */
  private async notifyStream(call: DecodedCall<StreamMethodName>): Promise<HttpReply> {
    try {
      const stream = await this.dispatcher.stream(call, framing(null));
      stream.cancel();
    } catch {
      // Notifications are not answered, not even with an error.
    }
    return emptyReply(204);
  }

  private fail(id: JsonRpcId, thrown: unknown): HttpReply {
    const error = asA2AError(thrown, this.options.logger);
    const status = HTTP_STATUS_OF[error.kind] ?? 200;
    return jsonReply(status, errorResponse(id, error), JSON_TYPE, errorHeaders(error, this.options.auth?.challenge));
  }
}
