import type { Instruments } from './instruments.js';
import { createInstruments } from './instruments.js';
import { ROOT_CONTEXT, W3C_PROPAGATOR } from './otel-context.js';
import type {
  ContextLike,
  ContextManagerLike,
  MeterProviderLike,
  TextMapPropagatorLike,
  TracerLike,
  TracerProviderLike,
} from './otel-types.js';

/**
 * Where the OpenTelemetry API (`@opentelemetry/api` 1.x, any copy of it)
 * keeps what an SDK registered: `trace.setGlobalTracerProvider`,
 * `metrics.setGlobalMeterProvider`, `propagation.setGlobalPropagator` and
 * `context.setGlobalContextManager` store their objects on this global, which
 * is how copies of the API share them.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

interface RegisteredApi {
  readonly trace?: TracerProviderLike;
  readonly metrics?: MeterProviderLike;
  readonly propagation?: TextMapPropagatorLike;
  readonly context?: ContextManagerLike;
}

function registered(): RegisteredApi | undefined {
  return (globalThis as unknown as Record<symbol, RegisteredApi | undefined>)[API_GLOBAL];
}

/** The instrumentation scope of every tracer and meter Taskwire uses. */
export const INSTRUMENTATION_SCOPE = '@taskwire/core';

/**
 * Telemetry providers given explicitly. Each one left out is taken from
 * what an OpenTelemetry SDK registered through `@opentelemetry/api`, looked
 * up on every use (so an SDK started after the service is still picked up).
 */
export interface TelemetryOptions {
  /** Where spans go, e.g. an SDK's `BasicTracerProvider` (default: the registered one, if any). */
  readonly tracerProvider?: TracerProviderLike | undefined;
  /** Where metrics go, e.g. an SDK's `MeterProvider` (default: the registered one, if any). */
  readonly meterProvider?: MeterProviderLike | undefined;
  /** How trace context crosses the wire (default: the registered one, else W3C Trace Context). */
  readonly propagator?: TextMapPropagatorLike | undefined;
  /** What keeps the active span across async work (default: the registered one; without one, spans still link, but an agent's own spans do not nest under its run). */
  readonly contextManager?: ContextManagerLike | undefined;
}

/**
 * The `telemetry` option of the service, the transports and the client:
 * left out, Taskwire uses whatever OpenTelemetry SDK the process
 * registered (nothing at all when none is: no `@opentelemetry/api` import,
 * no span objects); {@link TelemetryOptions} to pass providers yourself;
 * `false` to switch every span, metric and trace header off.
 */
export type TelemetrySetting = TelemetryOptions | Telemetry | false;

/**
 * Taskwire's handle on OpenTelemetry: hands out a tracer and the metric
 * instruments when a provider is there, `undefined` otherwise (callers then
 * skip all their telemetry work), and the propagator and context manager
 * to use. Tracers and instruments are made once per provider.
 */
export class Telemetry {
  /** Telemetry that is always off. */
  static readonly OFF = new Telemetry(false);

  #tracerProvider: TracerProviderLike | undefined;
  #tracer: TracerLike | undefined;
  #meterProvider: MeterProviderLike | undefined;
  #instruments: Instruments | undefined;

  constructor(private readonly options: TelemetryOptions | false = {}) {}

  /** False for {@link Telemetry.OFF} (and `telemetry: false`): nothing is ever recorded. */
  get enabled(): boolean {
    return this.options !== false;
  }

  /** The tracer, or `undefined` when no tracer provider is configured or registered. */
  tracer(): TracerLike | undefined {
    if (this.options === false) return undefined;
    const provider = this.options.tracerProvider ?? registered()?.trace;
    if (provider === undefined) return undefined;
    if (provider !== this.#tracerProvider) {
      this.#tracerProvider = provider;
      this.#tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
    }
    return this.#tracer;
  }

  /** The metric instruments, or `undefined` when no meter provider is configured or registered. */
  instruments(): Instruments | undefined {
    if (this.options === false) return undefined;
    const provider = this.options.meterProvider ?? registered()?.metrics;
    if (provider === undefined) return undefined;
    if (provider !== this.#meterProvider) {
      this.#meterProvider = provider;
      this.#instruments = createInstruments(provider.getMeter(INSTRUMENTATION_SCOPE));
    }
    return this.#instruments;
  }

  /** The propagator: configured, registered, or W3C Trace Context. */
  propagator(): TextMapPropagatorLike {
    return (this.options !== false && (this.options.propagator ?? registered()?.propagation)) || W3C_PROPAGATOR;
  }

  /** The active context (the root context without a context manager). */
  active(): ContextLike {
    return this.contextManager()?.active() ?? ROOT_CONTEXT;
  }

  /** Runs `fn` with `context` active (just runs it without a context manager). */
  with<T>(context: ContextLike, fn: () => T): T {
    const manager = this.contextManager();
    return manager ? manager.with(context, fn) : fn();
  }

  private contextManager(): ContextManagerLike | undefined {
    return this.options === false ? undefined : (this.options.contextManager ?? registered()?.context);
  }
}

/** The {@link Telemetry} of a `telemetry` option (see {@link TelemetrySetting}). */
export function resolveTelemetry(setting: TelemetrySetting | undefined): Telemetry {
  if (setting instanceof Telemetry) return setting;
  if (setting === false) return Telemetry.OFF;
  return new Telemetry(setting ?? {});
}
