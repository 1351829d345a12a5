import type { SpanContextLike } from './otel-types.js';

/** Structured fields of a log line (task ids, trace ids, an error's text, ...). */
export type LogFields = Record<string, unknown>;

/**
 * A structured logger, pino-shaped: each method takes the fields first and
 * the message second, so a `pino()` (or bunyan, or `console`-backed) logger
 * can be passed as it is. Taskwire never writes to `console`: give it a
 * logger to see what it reports. `error` reports unexpected failures, `warn`
 * failures the service recovered from, `info` task lifecycle (a run ended,
 * a task canceled), `debug` finer lifecycle (a run started); lines about a
 * task carry `taskId` and, when the call is traced, `traceId` and `spanId`.
 */
export interface Logger {
  debug?(fields: LogFields, message?: string): void;
  info?(fields: LogFields, message?: string): void;
  warn(fields: LogFields, message?: string): void;
  error(fields: LogFields, message?: string): void;
}

/** The message-first logger shape Taskwire took before its loggers were structured: `warn(message, meta)`. */
export interface MessageFirstLogger {
  debug?(message: string, meta?: LogFields): void;
  info?(message: string, meta?: LogFields): void;
  warn(message: string, meta?: LogFields): void;
  error(message: string, meta?: LogFields): void;
}

/** Adapts a message-first logger (`warn(message, meta)`) to the structured {@link Logger} Taskwire calls. */
export function fromMessageFirstLogger(logger: MessageFirstLogger): Logger {
  return {
    ...(logger.debug && { debug: (fields, message) => logger.debug!(message ?? '', fields) }),
    ...(logger.info && { info: (fields, message) => logger.info!(message ?? '', fields) }),
    warn: (fields, message) => logger.warn(message ?? '', fields),
    error: (fields, message) => logger.error(message ?? '', fields),
  };
}

/** `{traceId, spanId}` of a span context for a log line; `{}` without one. */
export function traceFields(spanContext: SpanContextLike | undefined): { traceId?: string; spanId?: string } {
  return spanContext ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : {};
}
