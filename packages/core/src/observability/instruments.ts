import type { CounterLike, HistogramLike, MeterLike } from './otel-types.js';

/**
 * The metrics Taskwire records, by name. Durations are in milliseconds.
 * Names follow the OpenTelemetry semantic conventions where one exists
 * (`rpc.server.duration`, `rpc.client.duration`) and are `taskwire.*`
 * otherwise.
 */
export const METRIC_NAMES = {
  /** Histogram (ms): served calls by `rpc.system`, `rpc.method` and outcome (`error.type` on failures); a stream lasts until it ends. */
  serverDuration: 'rpc.server.duration',
  /** Histogram (ms): client calls by `rpc.method` and outcome. */
  clientDuration: 'rpc.client.duration',
  /** Up-down counter: server streams open now, by `rpc.system` and `rpc.method`. */
  openStreams: 'taskwire.server.open_streams',
  /** Counter: tasks that reached a final state, by `gen_ai.agent.a2a.status`. */
  tasksFinished: 'taskwire.tasks.finished',
  /** Histogram (ms): agent runs, by the state the run left its task in (`gen_ai.agent.a2a.status`) and `error.type`. */
  runDuration: 'taskwire.agent.run.duration',
  /** Histogram (ms): task store commits, by `taskwire.store.outcome` (`ok`, `conflict`, `error`). */
  storeCommitDuration: 'taskwire.store.commit.duration',
  /** Counter: commits that lost an optimistic-concurrency race (the service retries them). */
  storeVersionConflicts: 'taskwire.store.version_conflicts',
  /** Counter: push notification attempts, by `taskwire.push.outcome` (`acknowledged`, `failed`). */
  pushAttempts: 'taskwire.push.delivery.attempts',
  /** Counter: push notification attempts that failed (an error status, a timeout, a refused address). */
  pushFailures: 'taskwire.push.delivery.failures',
  /** Counter: push notifications given up on (kept as dead letters). */
  pushDeadLetters: 'taskwire.push.dead_letters',
} as const;

/** Bucket boundaries (ms) of every duration histogram: 1 ms to 5 min. */
const DURATION_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000];

/** The instruments of one meter (made once per meter provider). */
export interface Instruments {
  readonly serverDuration: HistogramLike;
  readonly clientDuration: HistogramLike;
  readonly openStreams: CounterLike;
  readonly tasksFinished: CounterLike;
  readonly runDuration: HistogramLike;
  readonly storeCommitDuration: HistogramLike;
  readonly storeVersionConflicts: CounterLike;
  readonly pushAttempts: CounterLike;
  readonly pushFailures: CounterLike;
  readonly pushDeadLetters: CounterLike;
}

/** Creates every instrument on `meter`. */
export function createInstruments(meter: MeterLike): Instruments {
  const duration = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: 'ms', advice: { explicitBucketBoundaries: DURATION_BUCKETS } });
  const counter = (name: string, description: string) => meter.createCounter(name, { description, unit: '{count}' });
  return {
    serverDuration: duration(METRIC_NAMES.serverDuration, 'Duration of A2A calls served (a stream: until it ends)'),
    clientDuration: duration(METRIC_NAMES.clientDuration, 'Duration of A2A calls made by the client'),
    openStreams: meter.createUpDownCounter(METRIC_NAMES.openStreams, { description: 'A2A server streams open now', unit: '{stream}' }),
    tasksFinished: counter(METRIC_NAMES.tasksFinished, 'Tasks that reached a final state'),
    runDuration: duration(METRIC_NAMES.runDuration, 'Duration of agent runs'),
    storeCommitDuration: duration(METRIC_NAMES.storeCommitDuration, 'Duration of task store commits'),
    storeVersionConflicts: counter(METRIC_NAMES.storeVersionConflicts, 'Task store commits that lost a version race'),
    pushAttempts: counter(METRIC_NAMES.pushAttempts, 'Push notification attempts'),
    pushFailures: counter(METRIC_NAMES.pushFailures, 'Push notification attempts that failed'),
    pushDeadLetters: counter(METRIC_NAMES.pushDeadLetters, 'Push notifications given up on'),
  };
}
