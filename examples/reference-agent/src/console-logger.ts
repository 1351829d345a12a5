import type { LogFields, Logger } from '@taskwire/core';

const LEVELS = ['debug', 'info', 'warn'] as const;

/** A log level of {@link consoleLogger}. */
export type LogLevel = (typeof LEVELS)[number];

/**
 * The reference agent's logger: one line per entry on stderr (`level:
 * message {fields}`): warnings and errors always, `info` and `debug` from
 * `level` on. `TASKWIRE_LOG_LEVEL` picks the level when `pnpm start` runs it
 * (default `warn`; `info` shows every run's end with its task and trace
 * ids, `debug` every run's start too).
 */
export function consoleLogger(level: string = process.env.TASKWIRE_LOG_LEVEL ?? 'warn'): Logger {
  const from = LEVELS.indexOf(level as LogLevel);
  if (from < 0) throw new TypeError(`TASKWIRE_LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${level}")`);
  const line = (name: string) => (fields: LogFields, message?: string) => {
    const extra = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields, errorsAsText)}` : '';
    process.stderr.write(`${name}: ${message ?? ''}${extra}\n`);
  };
  const at = (name: LogLevel) => (LEVELS.indexOf(name) >= from ? line(name) : undefined);
  return { debug: at('debug'), info: at('info'), warn: line('warn'), error: line('error') };
}

/** JSON.stringify replacer: an Error as its name and message (its own fields are not enumerable). */
function errorsAsText(_key: string, value: unknown): unknown {
  return value instanceof Error ? `${value.name}: ${value.message}` : value;
}
