import type { CallContext, StreamEvent, StreamMethodName, UnaryMethodName } from '@taskwire/core';
import { A2AError, HEADER_GETTER, startServerCall, untilCredentialExpires, v03ParamsToV1, v1ResultToV03, v1StreamEventToV03 } from '@taskwire/core';
import type { HttpRequest } from './http-types.js';
import { header } from './http-types.js';
import type { ResolvedOptions } from './options.js';
import type { HttpCallContext } from './request-context.js';
import type { SseEncoder } from './sse-stream.js';
import { SseStream } from './sse-stream.js';
import { v03CallContext } from './v03-context.js';

/** How a binding frames stream items: one SSE frame per payload, and a frame for a mid-stream error. */
export interface StreamFraming {
  frame(sequence: number, payload: unknown): string;
  error(error: A2AError): string;
}

/** One call as a binding decoded it. `legacy` selects the v0.3 shapes for params and results. */
export interface DecodedCall<M> {
  readonly method: M;
  readonly params: unknown;
  readonly context: HttpCallContext;
  readonly legacy: boolean;
  readonly request: HttpRequest;
  /** The binding's `rpc.system` (`jsonrpc`, `a2a_http_json`): what its server span reports. */
  readonly system: string;
}

const DECIMAL = /^\d{1,15}$/;

/**
 * The part of request handling both bindings share: the v0.3 hook points
 * (params in, results and stream items out, the v0.3 call context), the SSE
 * resume point (`Last-Event-ID` → `afterSequence`), the extended card's auth
 * rule, and the calls into the service. It also tracks open streams so a
 * closing server can end them.
 */
export class Dispatcher {
  private readonly open = new Set<SseStream>();

  constructor(private readonly options: ResolvedOptions) {}

  /** Validates and runs a unary call; resolves its result in the caller's protocol version. */
  async unary(call: DecodedCall<UnaryMethodName>): Promise<unknown> {
    const context = contextOf(call);
    const observed = startServerCall(this.options.service.telemetry, call.system, call.method, call.params, context, call.request.headers, HEADER_GETTER);
    try {
      const result = await this.options.service.unary(call.method, this.params(call), context);
      observed?.ok(result);
      return call.legacy ? v1ResultToV03(call.method, result) : result;
    } catch (error) {
      observed?.fail(error);
      throw error;
    }
  }

  /**
   * Opens a stream call. Rejects before anything is written when the call is
   * refused (unknown task, terminal task, bad params), so the binding can
   * still answer a plain error. A v0.3 `tasks/resubscribe` ends at the first
   * terminal or interrupted state (the v0.3 `final` event), as the
   * `message/stream` it resumes did; a v1.0 SubscribeToTask follows the task
   * to its terminal state.
   */
  async stream(call: DecodedCall<StreamMethodName>, framing: StreamFraming): Promise<SseStream> {
    const abort = new AbortController();
    const { service } = this.options;
    const context = { ...contextOf(call), signal: abort.signal };
    const observed = startServerCall(service.telemetry, call.system, call.method, call.params, context, call.request.headers, HEADER_GETTER);
    let events: AsyncIterable<StreamEvent>;
    try {
      // v0.3's tasks/resubscribe resumes a message/stream: it ends where that stream ends (`final`), not at the task's end.
      events = await (call.legacy && call.method === 'SubscribeToTask'
        ? service.resumeStreamingMessage(this.params(call), context)
        : service.stream(call.method, this.params(call), context));
    } catch (error) {
      observed?.fail(error);
      throw error;
    }
    if (observed) events = observed.follow(events);
    // A stream opened with a credential that has an `exp` ends then, with the Unauthenticated error frame.
    events = untilCredentialExpires(events, context.principal, abort);
    const payload = call.legacy ? (e: StreamEvent) => v1StreamEventToV03(e.response) : (e: StreamEvent) => e.response;
    const encoder: SseEncoder = { event: (e) => framing.frame(e.sequence, payload(e)), error: framing.error };
    const stream = new SseStream(events, encoder, abort, this.options.heartbeatMs, this.options.logger);
    this.open.add(stream);
    stream.onClosed(() => this.open.delete(stream));
    return stream;
  }

  /** Ends every open stream (server shutdown); tasks keep running. */
  closeStreams(): void {
    for (const stream of [...this.open]) stream.cancel();
  }

  /** Number of streams currently open. */
  get openStreams(): number {
    return this.open.size;
  }

  private params(call: DecodedCall<UnaryMethodName | StreamMethodName>): unknown {
    const params = call.legacy ? v03ParamsToV1(call.method, call.params ?? {}) : call.params;
    return call.method === 'SubscribeToTask' ? withResumePoint(params, call.request) : params;
  }
}

/** The service's call context: a v0.3 call also gets v0.3 semantics (client-chosen task ids). */
function contextOf(call: DecodedCall<unknown>): CallContext {
  return call.legacy ? v03CallContext(call.context) : call.context;
}

/**
 * SubscribeToTask params with the SSE resume point: a `Last-Event-ID`
 * header becomes `afterSequence`, unless the params already name one.
 */
function withResumePoint(params: unknown, request: HttpRequest): unknown {
  const lastEventId = header(request.headers, 'last-event-id')?.trim();
  if (lastEventId === undefined || lastEventId === '') return params;
  if (!DECIMAL.test(lastEventId)) {
    throw new A2AError('InvalidParams', `Last-Event-ID must be the sequence number of the last event received (got "${lastEventId}")`);
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  if ((params as { afterSequence?: unknown }).afterSequence !== undefined) return params;
  return { ...params, afterSequence: Number(lastEventId) };
}
