import type {
  ContextLike,
  SpanContextLike,
  SpanLike,
  TextMapGetterLike,
  TextMapPropagatorLike,
  TextMapSetterLike,
  TraceStateLike,
} from './otel-types.js';

/**
 * Contexts, spans in contexts and W3C trace context, written against the
 * OpenTelemetry API's conventions so that an SDK (which reads contexts with
 * its own copy of the API) sees the same things: the span of a context is
 * stored under the API's key, and a context is immutable.
 */

/** The key under which the API keeps a context's span (`createContextKey` uses `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** An immutable context (the API's `BaseContext` behaviour). */
class OtelContext implements ContextLike {
  readonly #values: Map<symbol, unknown>;

  constructor(values?: Map<symbol, unknown>) {
    this.#values = values ? new Map(values) : new Map();
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): ContextLike {
    const next = new OtelContext(this.#values);
    next.#values.set(key, value);
    return next;
  }

  deleteValue(key: symbol): ContextLike {
    const next = new OtelContext(this.#values);
    next.#values.delete(key);
    return next;
  }
}

/** The empty context (used when no context manager is registered). */
export const ROOT_CONTEXT: ContextLike = new OtelContext();

/** The span a context carries, if any. */
export function spanOf(context: ContextLike): SpanLike | undefined {
  return context.getValue(SPAN_KEY) as SpanLike | undefined;
}

/** `context` with `span` as its span. */
export function withSpan(context: ContextLike, span: SpanLike): ContextLike {
  return context.setValue(SPAN_KEY, span);
}

/** A span that only carries a span context (what the API calls a non-recording span): a remote parent. */
export function remoteSpan(spanContext: SpanContextLike): SpanLike {
  const self: SpanLike = {
    spanContext: () => spanContext,
    setAttribute: () => self,
    setAttributes: () => self,
    addEvent: () => self,
    addLink: () => self,
    setStatus: () => self,
    recordException: () => undefined,
    end: () => undefined,
    isRecording: () => false,
  };
  return self;
}

/** A trace state kept as its W3C text (what the fallback propagator needs to pass it on). */
class RawTraceState implements TraceStateLike {
  constructor(private readonly raw: string) {}

  private entries(): [string, string][] {
    return this.raw
      .split(',')
      .map((member) => member.trim())
      .filter(Boolean)
      .map((member) => {
        const at = member.indexOf('=');
        return [member.slice(0, at), member.slice(at + 1)] as [string, string];
      });
  }

  get(key: string): string | undefined {
    return this.entries().find(([k]) => k === key)?.[1];
  }

  set(key: string, value: string): TraceStateLike {
    return new RawTraceState([`${key}=${value}`, ...this.entries().filter(([k]) => k !== key).map(([k, v]) => `${k}=${v}`)].join(','));
  }

  unset(key: string): TraceStateLike {
    return new RawTraceState(this.entries().filter(([k]) => k !== key).map(([k, v]) => `${k}=${v}`).join(','));
  }

  serialize(): string {
    return this.raw;
  }
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Reads a W3C `traceparent` (and optional `tracestate`): a remote span
 * context, or `undefined` when the header is malformed (version `ff`, ids of
 * zeros, extra fields on version 00).
 */
export function parseTraceparent(traceparent: string | undefined, tracestate?: string): SpanContextLike | undefined {
  if (!traceparent) return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest) || /^0+$/.test(traceId!) || /^0+$/.test(spanId!)) return undefined;
  return {
    traceId: traceId!,
    spanId: spanId!,
    traceFlags: Number.parseInt(flags!, 16),
    isRemote: true,
    ...(tracestate && { traceState: new RawTraceState(tracestate) }),
  };
}

/** The W3C `traceparent` of a span context (version 00). */
export function formatTraceparent(spanContext: SpanContextLike): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * W3C Trace Context (`traceparent`, `tracestate`), used when a tracer is
 * configured but no propagator is (an SDK normally registers one).
 */
export const W3C_PROPAGATOR: TextMapPropagatorLike = {
  inject(context: ContextLike, carrier: unknown, setter: TextMapSetterLike<unknown>): void {
    const span = spanOf(context)?.spanContext();
    if (!span || /^0+$/.test(span.traceId)) return;
    setter.set(carrier, 'traceparent', formatTraceparent(span));
    const state = span.traceState?.serialize();
    if (state) setter.set(carrier, 'tracestate', state);
  },
  extract(context: ContextLike, carrier: unknown, getter: TextMapGetterLike<unknown>): ContextLike {
    const parent = parseTraceparent(first(getter.get(carrier, 'traceparent')), first(getter.get(carrier, 'tracestate')));
    return parent ? withSpan(context, remoteSpan(parent)) : context;
  },
  fields: () => ['traceparent', 'tracestate'],
};

/** A carrier of plain header-like entries (lower-case names). */
export type HeaderCarrier = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads a {@link HeaderCarrier}. */
export const HEADER_GETTER: TextMapGetterLike<HeaderCarrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key.toLowerCase()];
    return Array.isArray(value) ? [...value] : (value as string | undefined);
  },
};

/** Writes a mutable record of headers (lower-case names). */
export const HEADER_SETTER: TextMapSetterLike<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key.toLowerCase()] = value;
  },
};
