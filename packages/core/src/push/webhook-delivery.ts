import { setMaxListeners } from 'node:events';
import { PushMetrics } from '../observability/push-metrics.js';
import { resolveTelemetry } from '../observability/telemetry.js';
import type { StoredEvent } from '../store/task-store.js';
import type { Clock } from './backoff.js';
import { retryPolicy, systemClock } from './backoff.js';
import type { DeadLetterMatch, DeadLetterQuery, PushDeadLetter, PushDelivery, PushSource, RedeliverySummary } from './push-config-store.js';
import { redeliverDeadLetters } from './dead-letter-redelivery.js';
import { pushConfigKeys } from './push-config-keys.js';
import { sendWithRetries, type SendDeps } from './webhook-send.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { DeliveryClaims } from './delivery-claims.js';
import type { WebhookGuard } from './webhook-guard.js';
import { createWebhookGuard } from './webhook-guard.js';
import type { WebhookAgents } from './webhook-request.js';
import { webhookAgents } from './webhook-request.js';
import type { WebhookDeliveryOptions, WebhookDeliveryStats } from './webhook-delivery-options.js';

export type { WebhookDeliveryOptions, WebhookDeliveryStats } from './webhook-delivery-options.js';

/** How many events a worker reads from the task store at a time. */
const READ_BATCH = 64;

interface Worker {
  again: boolean;
}

/**
 * Sends push notifications: each committed task event, as its
 * StreamResponse, to every config of its task (see `notificationHeaders`
 * for the headers). Per (task, config) the events go strictly in order: the
 * next is sent only once the previous was acknowledged with a 2xx or given
 * up on. A failure or a timeout is retried with exponential backoff and
 * full jitter up to `retry.maxAttempts`; then the notification becomes a
 * dead letter ({@link listDeadLetters}, {@link redeliver}) and the next one goes. Delivery is
 * at least once: the config's cursor in the push store (the outbox) moves
 * only after the acknowledgement, so after a restart the delivery resumes
 * from it, and a receiver may see a notification twice. The SSRF guard
 * checks each URL when a config is created and again before every attempt;
 * the request connects to the addresses it checked, and redirects are not
 * followed. One delivery serves one service.
 */
export class WebhookDelivery implements PushDelivery {
  readonly guard: WebhookGuard;
  private readonly clock: Clock;
  private readonly slots: ConcurrencyLimit;
  /** What every send needs but the push store (known at `start`). */
  private readonly sending: Omit<SendDeps, 'configs'>;
  private readonly agents: WebhookAgents = webhookAgents();
  private readonly stop = new AbortController();
  private readonly workers = new Map<string, Worker>();
  private idleWaiters: (() => void)[] = [];
  private source: PushSource | undefined;
  private sender: SendDeps | undefined;
  private claims: DeliveryClaims | undefined;
  private busy = 0;
  private closed = false;
  private redeliveries: Promise<void> = Promise.resolve();
  private readonly counters = { attempts: 0, delivered: 0, failures: 0, deadLetters: 0 };
  private readonly metrics: PushMetrics;

  constructor(private readonly options: WebhookDeliveryOptions = {}) {
    this.guard = createWebhookGuard({ allow: options.allow, lookup: options.lookup });
    const clock = (this.clock = options.clock ?? systemClock);
    this.metrics = new PushMetrics(resolveTelemetry(options.telemetry));
    this.slots = new ConcurrencyLimit(positive(options.concurrency ?? 32, 'concurrency'));
    this.sending = {
      slots: this.slots,
      policy: retryPolicy(options.retry),
      clock,
      random: options.random ?? Math.random,
      counters: this.counters,
      metrics: this.metrics,
      closed: () => this.closed,
      attempt: {
        guard: this.guard,
        agents: this.agents,
        timeoutMs: positive(options.timeoutMs ?? 15_000, 'timeoutMs'),
        userAgent: options.userAgent ?? 'taskwire-push',
        stop: this.stop.signal,
        now: () => clock.now(),
      },
    };
    // Every attempt in flight and every backoff wait listens to it.
    setMaxListeners(0, this.stop.signal);
  }

  async checkUrl(url: string): Promise<void> {
    await this.guard.resolve(url);
  }

  start(source: PushSource): void {
    if (this.source) throw new Error('This webhook delivery already serves a service: create one delivery per TaskService');
    this.source = source;
    this.sender = { ...this.sending, configs: source.configs };
    this.claims = new DeliveryClaims(source, (taskId, configId) => this.ensure(taskId, configId), this.options.claimTtlMs, this.options.logger);
    this.claims.start();
    this.track(async () => {
      for (const { taskId, configId } of await pushConfigKeys(source.configs)) this.ensure(taskId, configId);
    });
  }

  notify(taskId: string): void {
    if (!this.source || this.closed) return;
    const { configs } = this.source;
    this.track(async () => {
      for (const { configId } of await pushConfigKeys(configs, taskId)) this.ensure(taskId, configId);
    });
  }

  /** Dead letters, oldest first (from the push config store, so they survive a restart with a file store). */
  listDeadLetters(query?: DeadLetterQuery): Promise<PushDeadLetter[]> {
    if (!this.source) return Promise.resolve([]);
    return this.source.configs.listDeadLetters(query);
  }

  /**
   * Sends the dead letters matching `match` (default: all) again, with the
   * retries and SSRF checks of live delivery, to each config as it is now;
   * see `redeliverDeadLetters` for what is skipped, removed and kept. Calls
   * run one after another. Redelivered events go beside live ones: they may
   * arrive after newer events of the same task (receivers order and dedupe
   * by the task id and the `X-Taskwire-Event-Sequence` header), and the
   * config's cursor never moves. Rejects before `start`, after `close`, or
   * when it closes meanwhile.
   */
  redeliver(match: DeadLetterMatch = {}): Promise<RedeliverySummary> {
    const { source, sender } = this;
    if (!source || !sender || this.closed) return Promise.reject(new Error('This webhook delivery is not serving a service (not started, or closed)'));
    const run = this.redeliveries.then(() => redeliverDeadLetters({ source, send: (t, c, event) => sendWithRetries(sender, t, c, event, false) }, match));
    this.redeliveries = run.then(
      () => undefined,
      () => undefined,
    );
    this.track(() => this.redeliveries);
    return run;
  }

  /** Counters since this delivery was created. */
  stats(): WebhookDeliveryStats {
    return { ...this.counters };
  }

  /** Resolves once nothing is being sent or waited for: every pending notification was acknowledged or dead-lettered. */
  idle(): Promise<void> {
    if (this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops: aborts requests and waits in progress and waits for the workers to end. Undelivered notifications stay in the outbox. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort(new Error('The webhook delivery was closed'));
    this.slots.open();
    await this.idle();
    await this.claims?.close();
    this.agents.destroy();
  }

  /** Runs `work` counted as busy; logs what it throws. */
  private track(work: () => Promise<void>, onError?: (error: unknown) => void): void {
    this.busy++;
    work()
      .catch((error: unknown) => {
        if (this.closed) return;
        if (onError) onError(error);
        else this.options.logger?.error({ error: message(error) }, 'Taskwire push: could not read the push configs; delivery resumes on the next event');
      })
      .finally(() => {
        if (--this.busy === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
      });
  }

  /** Makes sure a worker drains `(taskId, configId)`; a running one runs once more. */
  private ensure(taskId: string, configId: string): void {
    if (this.closed) return;
    const key = `${taskId}\u0000${configId}`;
    const running = this.workers.get(key);
    if (running) {
      running.again = true;
      return;
    }
    const worker: Worker = { again: true };
    this.workers.set(key, worker);
    this.track(
      async () => {
        try {
          while (worker.again && !this.closed) {
            worker.again = false;
            const outcome = await this.claims!.drain(taskId, configId, (holds) => this.drain(taskId, configId, holds));
            if (outcome === 'taken') break;
            if (outcome === 'behind') worker.again = true;
          }
        } finally {
          this.workers.delete(key);
        }
      },
      (error) =>
        this.options.logger?.error({
          taskId,
          configId,
          error: message(error),
        }, 'Taskwire push: delivery to a config stopped after an unexpected error; it resumes on the next event or restart'),
    );
  }

  /** Sends every event after the config's cursor, in order, until it has caught up with the task or `holds()` turns false (its claim was lost). */
  private async drain(taskId: string, configId: string, holds: () => boolean = () => true): Promise<void> {
    const { tasks, configs } = this.source!;
    for (;;) {
      const entry = await configs.get(taskId, configId);
      if (!entry || this.closed) return;
      const record = await tasks.get(taskId);
      if (!record) {
        // The task is gone (deleted or evicted), and its events with it.
        await configs.delete(taskId, configId);
        return;
      }
      if (record.lastSequence <= entry.delivered) return;
      const events = await tasks.readEvents(taskId, entry.delivered, READ_BATCH);
      const first = events[0]?.sequence ?? record.lastSequence + 1;
      if (first > entry.delivered + 1) {
        await this.giveUp(taskId, configId, entry.config.url, entry.delivered + 1, {
          throughSequence: first - 1,
          attempts: 0,
          error: 'the task store no longer had these events (its retention dropped them) when they were due',
        });
      }
      for (const event of events) {
        if (!holds() || !(await this.deliver(taskId, configId, event, holds))) return;
      }
    }
  }

  /** Delivers one event (see `sendWithRetries`) while `holds()`; false when the worker must stop (config deleted, delivery closed, claim lost). */
  private async deliver(taskId: string, configId: string, event: StoredEvent, holds: () => boolean): Promise<boolean> {
    const result = await sendWithRetries(this.sender!, taskId, configId, event, true, holds);
    if (result.kind === 'acknowledged') await this.source!.configs.advance(taskId, configId, event.sequence);
    if (result.kind === 'failed') await this.giveUp(taskId, configId, result.url, event.sequence, { event: event.event, attempts: result.attempts, error: result.error });
    return result.kind !== 'gone' && result.kind !== 'stopped';
  }

  private async giveUp(
    taskId: string,
    configId: string,
    url: string,
    sequence: number,
    detail: Pick<PushDeadLetter, 'attempts' | 'error'> & Partial<Pick<PushDeadLetter, 'event' | 'throughSequence'>>,
  ): Promise<void> {
    const letter: PushDeadLetter = { taskId, configId, url, sequence, ...detail, at: new Date(this.clock.now()).toISOString() };
    await this.source!.configs.deadLetter(letter);
    this.counters.deadLetters++;
    this.metrics.deadLetter();
    this.options.logger?.warn({
      taskId,
      configId,
      sequence,
      attempts: detail.attempts,
      error: detail.error,
    }, 'Taskwire push: gave up on a notification; it is kept as a dead letter (see listDeadLetters)');
  }
}

/** A new {@link WebhookDelivery}: pass it as `push.delivery` of a TaskService. */
export function webhookDelivery(options?: WebhookDeliveryOptions): WebhookDelivery {
  return new WebhookDelivery(options);
}

function positive(value: number, name: string): number {
  if (!(value > 0)) throw new RangeError(`webhookDelivery: ${name} must be a positive number (got ${value})`);
  return value;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
