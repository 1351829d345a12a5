import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { DataPoint, Histogram, MetricData } from '@opentelemetry/sdk-metrics';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Attributes, TelemetryOptions } from '@taskwire/core';

/**
 * An OpenTelemetry SDK for tests: spans and metrics go to the SDK's
 * in-memory exporters; `options` hands the providers to Taskwire
 * explicitly (the service, the client).
 */
export class OtelKit {
  readonly spans = new InMemorySpanExporter();
  private readonly metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  private readonly reader = new PeriodicExportingMetricReader({ exporter: this.metricExporter, exportIntervalMillis: 3_600_000 });
  readonly tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(this.spans)] });
  readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  readonly contextManager = new AsyncLocalStorageContextManager().enable();
  readonly options: TelemetryOptions = {
    tracerProvider: this.tracerProvider,
    meterProvider: this.meterProvider,
    propagator: new W3CTraceContextPropagator(),
    contextManager: this.contextManager,
  };

  /** Every finished span so far. */
  finished(): ReadableSpan[] {
    return this.spans.getFinishedSpans();
  }

  /** Finished spans named `name` (and matching `attributes`). */
  named(name: string, attributes: Attributes = {}): ReadableSpan[] {
    return this.finished().filter((s) => s.name === name && Object.entries(attributes).every(([k, v]) => s.attributes[k] === v));
  }

  /** The one finished span named `name` with `attributes`; throws when there is not exactly one. */
  one(name: string, attributes: Attributes = {}): ReadableSpan {
    const found = this.named(name, attributes);
    if (found.length !== 1) {
      throw new Error(`expected one span ${name} ${JSON.stringify(attributes)}, found ${found.length}: ${this.finished().map((s) => s.name).join(', ')}`);
    }
    return found[0]!;
  }

  /** The current value of every metric (cumulative), by name. */
  async metrics(): Promise<Map<string, MetricData>> {
    await this.reader.forceFlush();
    const batches = this.metricExporter.getMetrics();
    const latest = batches.at(-1);
    const out = new Map<string, MetricData>();
    for (const scope of latest?.scopeMetrics ?? []) for (const metric of scope.metrics) out.set(metric.descriptor.name, metric);
    return out;
  }

  /** The data points of metric `name` whose attributes include `attributes`. */
  async points(name: string, attributes: Attributes = {}): Promise<DataPoint<number | Histogram>[]> {
    const metric = (await this.metrics()).get(name);
    const points = (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    return points.filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
  }

  /** Sum of a counter's points (or count of a histogram's) matching `attributes`. */
  async total(name: string, attributes: Attributes = {}): Promise<number> {
    const points = await this.points(name, attributes);
    return points.reduce((n, p) => n + (typeof p.value === 'number' ? p.value : p.value.count), 0);
  }

  /** Forgets the spans recorded so far (metrics are cumulative: compare totals). */
  reset(): void {
    this.spans.reset();
  }

  async shutdown(): Promise<void> {
    this.contextManager.disable();
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
  }
}
