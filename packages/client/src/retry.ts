import type { CallOptions, Logger, MethodName, MethodSpec, ParamsOf, ResultOf, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import { METHOD_NAMES, METHODS } from '@taskwire/core';
import type { BackoffOptions } from './backoff.js';
import { backoffDelay, backoffOptions, DEFAULT_RETRY_BACKOFF } from './backoff.js';
import type { Clock, Random } from './clock.js';
import { systemClock } from './clock.js';
import type { AttemptOptions } from './interceptors.js';
import { hasIdempotencyKey } from './idempotency-keys.js';
import { isTransient, retryAfterOf } from './transient.js';

/**
 * The operations that may be sent twice without changing anything: the
 * unary reads of the method table (those the HTTP+JSON binding maps to
 * `GET`): GetTask, ListTasks, the two push-config reads and
 * GetExtendedAgentCard. SendMessage, CancelTask and the push-config writes
 * are never retried.
 */
export const IDEMPOTENT_METHODS: ReadonlySet<MethodName> = new Set(
  METHOD_NAMES.filter((m) => (METHODS[m] as MethodSpec).kind === 'unary' && (METHODS[m] as MethodSpec).rest.verb === 'GET'),
);

/** How failed idempotent calls are retried. */
export interface RetryOptions {
  /** Tries in all, the first included (default 3). `1` turns retrying off. */
  readonly attempts?: number;
  /** Delays between tries (default {@link DEFAULT_RETRY_BACKOFF}); a `Retry-After` is a floor. */
  readonly backoff?: Partial<BackoffOptions>;
  /** Which errors are worth another try (default {@link isTransient}). */
  readonly isTransient?: (error: unknown) => boolean;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger?: Logger;
}

/**
 * Wraps `transport` so that an idempotent unary call ({@link IDEMPOTENT_METHODS},
 * and a SendMessage that carries an `Idempotency-Key`) that fails with a transient error (see {@link isTransient}) is tried again
 * after an exponential, fully jittered delay, honouring `Retry-After`, until
 * it succeeds, `attempts` are used up, `backoff.maxTotalMs` would be passed
 * or the call's signal aborts; then the last error is thrown. Other calls
 * and all protocol errors go through untouched. Streams are resumed
 * elsewhere (see `resumableStream`).
 */
export function withRetry(transport: Transport, options: RetryOptions = {}): Transport {
  const attempts = options.attempts ?? 3;
  const backoff = backoffOptions(options.backoff, DEFAULT_RETRY_BACKOFF);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const transient = options.isTransient ?? isTransient;
  if (attempts <= 1) return transport;
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, callOptions?: CallOptions): Promise<ResultOf<M>> {
      if (!IDEMPOTENT_METHODS.has(method) && !(method === 'SendMessage' && hasIdempotencyKey(callOptions))) return transport.unary(method, params, callOptions);
      const started = clock.now();
      for (let attempt = 0; ; attempt++) {
        try {
          return await transport.unary(method, params, { ...callOptions, attempt } as AttemptOptions);
        } catch (error) {
          if (attempt + 1 >= attempts || !transient(error) || callOptions?.signal?.aborted) throw error;
          const delay = backoffDelay(attempt, backoff, random, retryAfterOf(error));
          if (clock.now() - started + delay > backoff.maxTotalMs) throw error;
          options.logger?.warn({
            method,
            attempt,
          }, `A2A ${method} failed (${error instanceof Error ? error.message : String(error)}); retrying in ${delay} ms`);
          await clock.sleep(delay, callOptions?.signal);
        }
      }
    },
    stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, callOptions?: CallOptions) {
      return transport.stream(method, params, callOptions);
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}
