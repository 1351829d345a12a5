import type { CallOptions, Logger, MethodName, ParamsOf, ResultOf, StreamEvent, StreamMethodName, Transport, UnaryMethodName } from '@taskwire/core';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

/**
 * One call as interceptors see it. `before` hooks may change `params` and
 * `headers` (e.g. add `x-api-key`); both are sent as they are after the last
 * `before` hook.
 */
export interface CallInfo {
  /** A number unique to this call within the process. */
  readonly id: number;
  readonly method: MethodName;
  readonly kind: 'unary' | 'stream';
  /** The params to send. */
  params: unknown;
  /** Request headers (gRPC metadata, WebSocket call headers); lower-case names. */
  headers: Record<string, string>;
  /** 0 for the first try, 1 for the first retry of an idempotent call, ... */
  readonly attempt: number;
  /** When the call started, by the interceptor chain's clock (ms). */
  readonly startedAt: number;
  readonly signal: AbortSignal | undefined;
}

/**
 * How a call ended: its result (unary) or how many events it delivered
 * (stream), or the error it failed with. A stream the consumer stopped
 * reading ends `ok`.
 */
export type CallOutcome =
  | { readonly ok: true; readonly result?: unknown; readonly events?: number; readonly durationMs: number }
  | { readonly ok: false; readonly error: unknown; readonly events?: number; readonly durationMs: number };

/**
 * Hooks around every call. `before` hooks run in order before the request is
 * sent; `after` hooks run in reverse order once it has ended (for a stream:
 * when it ends, fails or is closed by the consumer). A hook that throws fails
 * the call with its error.
 */
export interface Interceptor {
  before?(call: CallInfo): void | Promise<void>;
  after?(call: CallInfo, outcome: CallOutcome): void | Promise<void>;
}

type OutcomeWithoutTime = CallOutcome extends infer O ? (O extends CallOutcome ? Omit<O, 'durationMs'> : never) : never;

/** Call options with the retry attempt the retry layer is on (internal to the client). */
export interface AttemptOptions extends CallOptions {
  readonly attempt?: number;
}

let nextCallId = 1;

/**
 * Wraps `transport` so that every unary call and stream passes through
 * `interceptors`. The result is a `Transport` again, so wrappers compose.
 */
export function withInterceptors(transport: Transport, interceptors: readonly Interceptor[], clock: Clock = systemClock): Transport {
  if (interceptors.length === 0) return transport;
  const begin = async (method: MethodName, kind: 'unary' | 'stream', params: unknown, options: AttemptOptions | undefined) => {
    const call: CallInfo = {
      id: nextCallId++,
      method,
      kind,
      params,
      headers: { ...options?.headers },
      attempt: options?.attempt ?? 0,
      startedAt: clock.now(),
      signal: options?.signal,
    };
    for (const interceptor of interceptors) await interceptor.before?.(call);
    return call;
  };
  const end = async (call: CallInfo, outcome: OutcomeWithoutTime) => {
    const full = { ...outcome, durationMs: clock.now() - call.startedAt } as CallOutcome;
    for (const interceptor of [...interceptors].reverse()) await interceptor.after?.(call, full);
  };
  const sent = (call: CallInfo, options: CallOptions | undefined): CallOptions => ({ ...options, headers: call.headers });
  return {
    async unary<M extends UnaryMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): Promise<ResultOf<M>> {
      const call = await begin(method, 'unary', params, options);
      let result: ResultOf<M>;
      try {
        result = await transport.unary(method, call.params as ParamsOf<M>, sent(call, options));
      } catch (error) {
        await end(call, { ok: false, error });
        throw error;
      }
      await end(call, { ok: true, result });
      return result;
    },
    async *stream<M extends StreamMethodName>(method: M, params: ParamsOf<M>, options?: CallOptions): AsyncIterable<StreamEvent> {
      const call = await begin(method, 'stream', params, options);
      let events = 0;
      let failure: { error: unknown } | undefined;
      try {
        for await (const event of transport.stream(method, call.params as ParamsOf<M>, sent(call, options))) {
          events++;
          yield event;
        }
      } catch (error) {
        failure = { error };
        throw error;
      } finally {
        await end(call, failure ? { ok: false, error: failure.error, events } : { ok: true, events });
      }
    },
    close: () => transport.close?.() ?? Promise.resolve(),
  };
}

/** Adds fixed headers, or headers computed per call (e.g. a fresh token), to every call. */
export function headersInterceptor(
  headers: Readonly<Record<string, string>> | ((call: CallInfo) => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>),
): Interceptor {
  return {
    async before(call) {
      const add = typeof headers === 'function' ? await headers(call) : headers;
      for (const [name, value] of Object.entries(add)) call.headers[name.toLowerCase()] = value;
    },
  };
}

/** Sends `key` in the `x-api-key` header (or in `header`) on every call. */
export function apiKeyInterceptor(key: string, header = 'x-api-key'): Interceptor {
  return headersInterceptor({ [header]: key });
}

/** Sends `Authorization: Bearer <token>` on every call; `token` may be a function returning a fresh one. */
export function bearerInterceptor(token: string | (() => string | Promise<string>)): Interceptor {
  return headersInterceptor(async () => ({ authorization: `Bearer ${typeof token === 'function' ? await token() : token}` }));
}

/** Logs each call's end: `debug` (when the logger has it) on success, `warn` on failure. */
export function loggingInterceptor(logger: Logger): Interceptor {
  return {
    after(call, outcome) {
      const meta = { method: call.method, attempt: call.attempt, durationMs: outcome.durationMs, events: outcome.events };
      if (outcome.ok) logger.debug?.(meta, `A2A ${call.method} succeeded`);
      else logger.warn(meta, `A2A ${call.method} failed: ${outcome.error instanceof Error ? outcome.error.message : String(outcome.error)}`);
    },
  };
}

/** One call's timing, as {@link timingInterceptor} reports it. */
export interface CallTiming {
  readonly method: MethodName;
  readonly attempt: number;
  readonly ok: boolean;
  readonly durationMs: number;
  readonly events: number | undefined;
}

/** Reports every call's duration (ms, by the chain's clock) to `report`. */
export function timingInterceptor(report: (timing: CallTiming) => void): Interceptor {
  return {
    after(call, outcome) {
      report({ method: call.method, attempt: call.attempt, ok: outcome.ok, durationMs: outcome.durationMs, events: outcome.events });
    },
  };
}
