/**
 * The parts of the OpenTelemetry JS API that Taskwire uses, declared
 * structurally so that core neither imports `@opentelemetry/api` nor needs
 * its types: the API's own objects (a `TracerProvider`, a `MeterProvider`, a
 * `TextMapPropagator`, a `ContextManager`, an SDK's spans) fit these shapes.
 */

/** An attribute value (the API's `AttributeValue`). */
export type AttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>;

/** Span or metric attributes (the API's `Attributes`); `undefined` values are dropped by the SDK. */
export type Attributes = Record<string, AttributeValue | undefined>;

/** W3C trace state (the API's `TraceState`). */
export interface TraceStateLike {
  get(key: string): string | undefined;
  set(key: string, value: string): TraceStateLike;
  unset(key: string): TraceStateLike;
  serialize(): string;
}

/** Identifies a span (the API's `SpanContext`). `traceFlags` bit 1 is "sampled". */
export interface SpanContextLike {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
  readonly isRemote?: boolean | undefined;
  readonly traceState?: TraceStateLike | undefined;
}

/** An immutable bag of values carried along a call (the API's `Context`). */
export interface ContextLike {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): ContextLike;
  deleteValue(key: symbol): ContextLike;
}

/** A link to another span (the API's `Link`). */
export interface LinkLike {
  readonly context: SpanContextLike;
  readonly attributes?: Attributes | undefined;
}

/** What a span starts with (the API's `SpanOptions`); `kind` is a {@link SPAN_KIND} value. */
export interface SpanOptionsLike {
  kind?: number;
  attributes?: Attributes;
  links?: LinkLike[];
  root?: boolean;
}

/** A span (the API's `Span`). `addLink` exists from API 1.8 on. */
export interface SpanLike {
  spanContext(): SpanContextLike;
  setAttribute(key: string, value: AttributeValue): unknown;
  setAttributes(attributes: Attributes): unknown;
  addEvent(name: string, attributes?: Attributes): unknown;
  addLink?(link: LinkLike): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error | string): void;
  end(): void;
  isRecording(): boolean;
}

/** Starts spans (the API's `Tracer`). */
export interface TracerLike {
  startSpan(name: string, options?: SpanOptionsLike, context?: ContextLike): SpanLike;
}

/** Hands out tracers (the API's `TracerProvider`, e.g. an SDK's `BasicTracerProvider`). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): TracerLike;
}

/** Reads a carrier (the API's `TextMapGetter`). */
export interface TextMapGetterLike<C> {
  keys(carrier: C): string[];
  get(carrier: C, key: string): string | string[] | undefined;
}

/** Writes a carrier (the API's `TextMapSetter`). */
export interface TextMapSetterLike<C> {
  set(carrier: C, key: string, value: string): void;
}

/** Injects and extracts trace context (the API's `TextMapPropagator`, e.g. `W3CTraceContextPropagator`). */
export interface TextMapPropagatorLike {
  inject(context: ContextLike, carrier: any, setter: TextMapSetterLike<any>): void;
  extract(context: ContextLike, carrier: any, getter: TextMapGetterLike<any>): ContextLike;
  fields(): string[];
}

/** Keeps the active context across async work (the API's `ContextManager`). */
export interface ContextManagerLike {
  active(): ContextLike;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: ContextLike, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F>;
}

/** What an instrument is created with (the API's `MetricOptions`). */
export interface MetricOptionsLike {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** A counter or up-down counter (the API's `Counter` / `UpDownCounter`). */
export interface CounterLike {
  add(value: number, attributes?: Attributes): void;
}

/** A histogram (the API's `Histogram`). */
export interface HistogramLike {
  record(value: number, attributes?: Attributes): void;
}

/** Creates instruments (the API's `Meter`). */
export interface MeterLike {
  createCounter(name: string, options?: MetricOptionsLike): CounterLike;
  createUpDownCounter(name: string, options?: MetricOptionsLike): CounterLike;
  createHistogram(name: string, options?: MetricOptionsLike): HistogramLike;
}

/** Hands out meters (the API's `MeterProvider`, e.g. an SDK's `MeterProvider`). */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): MeterLike;
}

/** The API's `SpanKind` values. */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;

/** The API's `SpanStatusCode` values. */
export const SPAN_STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
