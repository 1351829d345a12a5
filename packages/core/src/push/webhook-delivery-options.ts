import type { TelemetrySetting } from '../observability/telemetry.js';
import type { Logger } from '../observability/logger.js';
import type { Clock, RetryPolicy } from './backoff.js';
import type { HostLookup } from './webhook-guard.js';

/** Options of {@link webhookDelivery}. */
export interface WebhookDeliveryOptions {
  /** The SSRF guard's allow-list: host names, IPs and CIDR ranges reachable although not public (see `createWebhookGuard`). */
  readonly allow?: readonly string[];
  /** DNS resolution for the guard (default: the system resolver). */
  readonly lookup?: HostLookup;
  /** Attempts and waits (defaults: 8 attempts, waits capped at 1 s doubling up to 5 min, full jitter). */
  readonly retry?: Partial<RetryPolicy>;
  /** Time allowed for each attempt, in ms (default 15,000; the spec recommends 10-30 s). */
  readonly timeoutMs?: number;
  /** Requests in flight at once over all webhooks (default 32). */
  readonly concurrency?: number;
  /** The clock backoff waits on (default: real time). */
  readonly clock?: Clock;
  /** The jitter source, numbers in [0, 1) (default `Math.random`). */
  readonly random?: () => number;
  /** The `User-Agent` of notifications (default `taskwire-push`). */
  readonly userAgent?: string;
  /** Told about dead letters (warn) and unexpected errors (error). */
  readonly logger?: Logger;
  /** With a store several processes share (it has `claim`): how long a claim on a config lasts unrenewed (default 15 s), so how late another process takes over from one that stopped. */
  readonly claimTtlMs?: number;
  /**
   * Where attempt, failure and dead-letter counts go
   * (`taskwire.push.delivery.attempts`, `...failures`, `taskwire.push.dead_letters`);
   * default: the OpenTelemetry SDK the process registered, if any.
   */
  readonly telemetry?: TelemetrySetting;
}

/** Counters of a {@link WebhookDelivery}. */
export interface WebhookDeliveryStats {
  /** Requests sent (or refused by the guard at send time). */
  readonly attempts: number;
  /** Notifications acknowledged with a 2xx. */
  readonly delivered: number;
  /** Attempts that failed. */
  readonly failures: number;
  /** Notifications given up on. */
  readonly deadLetters: number;
}
