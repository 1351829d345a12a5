import type { MethodName } from '../methods.js';
import { WS_PROTOCOL_BINDING, type CallContext, type StreamEvent } from '../calls.js';
import { A2A_RPC_SERVICE, ATTR, paramsAttributes, resultAttributes } from './attributes.js';
import { failSpan, failureAttributes, RPC_SYSTEM, successAttributes } from './call-outcome.js';
import type { Instruments } from './instruments.js';
import { formatTraceparent, parseTraceparent, spanOf } from './otel-context.js';
import type { Attributes, SpanLike, TextMapGetterLike } from './otel-types.js';
import { SPAN_KIND } from './otel-types.js';
import type { Telemetry } from './telemetry.js';
import { watchStream } from './watch-stream.js';

/**
 * The trace of one served call, as the service sees it: the W3C
 * `traceparent` of the call's server span (agent runs the call starts are
 * its children, and a task it creates keeps it), and links from that span
 * to other traces (the request that started a task, for a call that
 * continues or cancels it).
 */
export interface CallTrace {
  readonly traceparent: string;
  /** Links the call's span to the span a stored `traceparent` names; `kind` becomes the link's `taskwire.link` attribute. */
  link(traceparent: string | undefined, kind: string): void;
}

const TRACES = new WeakMap<CallContext, CallTrace>();

/** The trace {@link startServerCall} gave this exact call context, if any. */
export function callTraceOf(context: CallContext): CallTrace | undefined {
  return TRACES.get(context);
}

const PROTOCOL_OF: Record<string, string> = {
  [RPC_SYSTEM.jsonRpc]: 'JSONRPC',
  [RPC_SYSTEM.grpc]: 'GRPC',
  [RPC_SYSTEM.httpJson]: 'HTTP+JSON',
  [RPC_SYSTEM.webSocket]: WS_PROTOCOL_BINDING,
};

const now = () => performance.now();

/**
 * One served call's span (kind SERVER, named `lf.a2a.v1.A2AService/<method>`)
 * and its `rpc.server.duration`. End it exactly once: {@link ok} or
 * {@link fail} for a unary call or a stream refused before it started;
 * a started stream goes through {@link follow}, which ends the call when
 * the stream ends (however it ends).
 */
export class ServerCall {
  private readonly started = now();
  private ended = false;
  private events = 0;
  private lastState: string | undefined;

  constructor(
    private readonly span: SpanLike | undefined,
    private readonly instruments: Instruments | undefined,
    private readonly system: string,
    private readonly metricAttributes: Attributes,
  ) {}

  /** Ends a call that succeeded with `result` (ids and task state go on the span). */
  ok(result: unknown): void {
    if (this.ended) return;
    if (this.span) this.span.setAttributes(successAttributes(this.system, resultAttributes(result)));
    this.finish(successAttributes(this.system, this.metricAttributes));
  }

  /** Ends a call that failed with `error` (as the transport answers it). */
  fail(error: unknown): void {
    if (this.ended) return;
    if (this.span) failSpan(this.span, this.system, error, true);
    failureAttributes(this.system, error, this.metricAttributes);
    this.finish(this.metricAttributes);
  }

  /**
   * Follows a started stream: counts its events (status changes also become
   * span events) and ends the call when the stream ends, fails, or is
   * closed early (the client went away); counts it as open meanwhile.
   */
  follow(events: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
    const open = { [ATTR.rpcSystem]: this.system, [ATTR.rpcMethod]: this.metricAttributes[ATTR.rpcMethod] };
    this.instruments?.openStreams.add(1, open);
    return watchStream(events, (event) => this.event(event), (end, error) => {
      this.instruments?.openStreams.add(-1, open);
      this.span?.setAttributes({ [ATTR.streamEvents]: this.events, [ATTR.streamEnd]: end, [ATTR.taskState]: this.lastState });
      if (end === 'failed') this.fail(error);
      else this.ok(undefined);
    });
  }

  private event(event: StreamEvent): void {
    this.events++;
    const response = event.response;
    const state = 'task' in response ? response.task.status.state : 'statusUpdate' in response ? response.statusUpdate.status.state : undefined;
    if (state === undefined) return;
    this.lastState = state;
    if (this.span?.isRecording()) this.span.addEvent('a2a.stream.status', { [ATTR.taskState]: state, 'taskwire.stream.sequence': event.sequence });
  }

  private finish(attributes: Attributes): void {
    this.ended = true;
    this.instruments?.serverDuration.record(now() - this.started, attributes);
    this.span?.end();
  }
}

/**
 * Starts the telemetry of one served call, or returns `undefined` (do
 * nothing more) when no tracer and no meter is there. The parent span is the
 * active one when the host already traces the request (HTTP
 * instrumentation), else the one the carrier's trace headers name
 * (`traceparent`, read with `getter`). Register the result's trace on the
 * call context the service receives: pass that very object as `context`.
 */
export function startServerCall(
  telemetry: Telemetry,
  system: string,
  method: MethodName,
  params: unknown,
  context: CallContext,
  carrier: unknown,
  getter: TextMapGetterLike<unknown>,
): ServerCall | undefined {
  const tracer = telemetry.tracer();
  const instruments = telemetry.instruments();
  if (tracer === undefined && instruments === undefined) return undefined;
  const metricAttributes: Attributes = { [ATTR.rpcSystem]: system, [ATTR.rpcService]: A2A_RPC_SERVICE, [ATTR.rpcMethod]: method };
  let span: SpanLike | undefined;
  if (tracer) {
    const active = telemetry.active();
    const parent = spanOf(active) ? active : telemetry.propagator().extract(active, carrier, getter);
    const attributes: Attributes = { ...metricAttributes, [ATTR.a2aOperation]: method, [ATTR.protocol]: PROTOCOL_OF[system] ?? system };
    if (system === RPC_SYSTEM.jsonRpc) attributes[ATTR.jsonRpcVersion] = '2.0';
    if (context.extensions?.length) attributes[ATTR.extensions] = [...context.extensions];
    span = tracer.startSpan(`${A2A_RPC_SERVICE}/${method}`, { kind: SPAN_KIND.SERVER, attributes: paramsAttributes(params, attributes) }, parent);
    const own = span;
    TRACES.set(context, {
      traceparent: formatTraceparent(span.spanContext()),
      link(traceparent, kind) {
        const linked = parseTraceparent(traceparent);
        if (linked && own.addLink) own.addLink({ context: linked, attributes: { [ATTR.linkKind]: kind } });
      },
    });
  }
  return new ServerCall(span, instruments, system, metricAttributes);
}
