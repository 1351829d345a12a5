import type { MethodName } from '../methods.js';
import type { StreamEvent } from '../calls.js';
import { A2A_RPC_SERVICE, ATTR, INVOKE_AGENT, paramsAttributes, resultAttributes } from './attributes.js';
import { failSpan, failureAttributes } from './call-outcome.js';
import type { Instruments } from './instruments.js';
import { HEADER_SETTER, withSpan } from './otel-context.js';
import type { Attributes, SpanLike } from './otel-types.js';
import { SPAN_KIND } from './otel-types.js';
import type { Telemetry } from './telemetry.js';
import { watchStream } from './watch-stream.js';

/** What a client knows about the agent it calls. */
export interface ClientCallTarget {
  /** The agent's name (its card's `name`): `gen_ai.agent.name`, and part of the span name. */
  readonly agentName?: string | undefined;
  /** The interface URL called: `server.address`. */
  readonly serverAddress?: string | undefined;
  /** The `rpc.system` of the transport, when known. */
  readonly system?: string | undefined;
}

/** Operations that invoke the agent or follow its work: their client spans are GenAI `invoke_agent` spans. */
const INVOKES = new Set<MethodName>(['SendMessage', 'SendStreamingMessage', 'GetTask', 'SubscribeToTask', 'CancelTask']);

const now = () => performance.now();

/**
 * One client call's CLIENT span and `rpc.client.duration`. `headers` holds
 * the trace headers to send (`traceparent`, `tracestate`). End it once with
 * {@link ok} / {@link fail}, or pass a stream through {@link follow}.
 */
export class ClientCall {
  private readonly started = now();
  private ended = false;
  private events = 0;

  constructor(
    private readonly span: SpanLike | undefined,
    private readonly instruments: Instruments | undefined,
    private readonly system: string,
    private readonly metricAttributes: Attributes,
    /** The trace headers to send with the call (empty without a tracer). */
    readonly headers: Record<string, string>,
  ) {}

  /** Ends a call that answered `result`. */
  ok(result: unknown): void {
    if (this.ended) return;
    this.span?.setAttributes(resultAttributes(result));
    this.finish(this.metricAttributes);
  }

  /** Ends a call that failed with `error`. */
  fail(error: unknown): void {
    if (this.ended) return;
    if (this.span) failSpan(this.span, this.system, error, false);
    failureAttributes(this.system, error, this.metricAttributes);
    this.finish(this.metricAttributes);
  }

  /** Follows a stream: counts its events and ends the call with it. */
  follow(events: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
    let last: StreamEvent | undefined;
    return watchStream(
      events,
      (event) => {
        this.events++;
        last = event;
      },
      (end, error) => {
        this.span?.setAttributes({ ...(last && resultAttributes(last.response)), [ATTR.streamEvents]: this.events, [ATTR.streamEnd]: end });
        if (end === 'failed') this.fail(error);
        else this.ok(undefined);
      },
    );
  }

  private finish(attributes: Attributes): void {
    this.ended = true;
    this.instruments?.clientDuration.record(now() - this.started, attributes);
    this.span?.end();
  }
}

/**
 * Starts the telemetry of one client call, or returns `undefined` when no
 * tracer and no meter is there. The span (kind CLIENT) is a child of the
 * active span; `invoke_agent <agent>` for the operations that invoke the
 * agent or follow its task, `lf.a2a.v1.A2AService/<method>` for the others.
 */
export function startClientCall(telemetry: Telemetry, method: MethodName, params: unknown, target: ClientCallTarget): ClientCall | undefined {
  const tracer = telemetry.tracer();
  const instruments = telemetry.instruments();
  if (tracer === undefined && instruments === undefined) return undefined;
  const system = target.system ?? 'unknown';
  const metricAttributes: Attributes = { [ATTR.rpcSystem]: system, [ATTR.rpcService]: A2A_RPC_SERVICE, [ATTR.rpcMethod]: method };
  const headers: Record<string, string> = {};
  let span: SpanLike | undefined;
  if (tracer) {
    const invokes = INVOKES.has(method);
    const attributes: Attributes = { ...metricAttributes, [ATTR.a2aOperation]: method, [ATTR.serverAddress]: target.serverAddress };
    if (invokes) {
      attributes[ATTR.operationName] = INVOKE_AGENT;
      attributes[ATTR.agentName] = target.agentName;
    }
    const name = invokes ? (target.agentName ? `${INVOKE_AGENT} ${target.agentName}` : INVOKE_AGENT) : `${A2A_RPC_SERVICE}/${method}`;
    const parent = telemetry.active();
    span = tracer.startSpan(name, { kind: SPAN_KIND.CLIENT, attributes: paramsAttributes(params, attributes) }, parent);
    telemetry.propagator().inject(withSpan(parent, span), headers, HEADER_SETTER);
  }
  return new ClientCall(span, instruments, system, metricAttributes, headers);
}
