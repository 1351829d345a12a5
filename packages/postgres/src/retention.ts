import type { Logger } from '@taskwire/core';
import type { Connection } from './connection.js';
import { databaseError } from './database-errors.js';
import { prepared } from './schema-name.js';
import { timerInterval } from './timer-interval.js';

/**
 * How long a task's events are kept (default: all of them, as long as the
 * task). Dropping events never touches the task itself. A reader asking for
 * events that were dropped gets the log from its oldest kept event on (the
 * gap in the sequence numbers tells it), as with the memory and file stores;
 * the service then sends the task as it is now and goes on from there.
 */
export interface EventRetentionOptions {
  /** Events kept per task, newest first; older ones are dropped by the commit that passes the bound. */
  readonly maxEventsPerTask?: number;
  /** Events older than this many milliseconds are dropped by a periodic sweep. */
  readonly maxEventAgeMs?: number;
  /** How often the age sweep runs (default: a tenth of `maxEventAgeMs`, at least 1 s, at most 10 minutes). */
  readonly sweepIntervalMs?: number;
}

/** {@link EventRetentionOptions} checked. */
export interface ResolvedRetention {
  readonly maxEventsPerTask: number | undefined;
  readonly maxEventAgeMs: number | undefined;
  readonly sweepIntervalMs: number;
}

/** Rows one sweep statement deletes at most (a sweep repeats it until fewer go). */
const SWEEP_BATCH = 10_000;

function positive(value: number | undefined, name: string, integer: boolean): number | undefined {
  if (value === undefined || value === Infinity) return undefined;
  if (!(value > 0) || (integer && !Number.isInteger(value))) {
    throw new RangeError(`retention.${name} must be a positive ${integer ? 'integer' : 'number'} (got ${value})`);
  }
  return value;
}

/** Checks retention options (a RangeError for a bound that is not positive, or a sweep interval a timer cannot take) and fills in the sweep interval. */
export function resolveRetention(options: EventRetentionOptions = {}): ResolvedRetention {
  const maxEventAgeMs = positive(options.maxEventAgeMs, 'maxEventAgeMs', false);
  const fallback = Math.min(600_000, Math.max(1_000, (maxEventAgeMs ?? 0) / 10));
  return {
    maxEventsPerTask: positive(options.maxEventsPerTask, 'maxEventsPerTask', true),
    maxEventAgeMs,
    // Infinity, as for the bounds, means "not given".
    sweepIntervalMs: timerInterval(options.sweepIntervalMs === Infinity ? undefined : options.sweepIntervalMs, fallback, 'retention.sweepIntervalMs'),
  };
}

/**
 * The age sweep of a task store: with `maxEventAgeMs`, deletes older events
 * in batches every `sweepIntervalMs` (in the background, never overlapping
 * itself; a failure is logged and tried again at the next tick). Every
 * process sharing the tables may sweep: deleting is idempotent.
 */
export class EventRetention {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly options: ResolvedRetention,
    private readonly logger: Logger | undefined,
  ) {}

  get maxEventsPerTask(): number | undefined {
    return this.options.maxEventsPerTask;
  }

  /** Starts the periodic sweep (when there is an age bound). */
  start(): void {
    if (this.options.maxEventAgeMs === undefined) return;
    this.timer = setInterval(() => {
      this.sweep().catch((error: unknown) =>
        this.logger?.warn({ error: String(error) }, 'Taskwire postgres: the event retention sweep failed; it runs again later'),
      );
    }, this.options.sweepIntervalMs);
    this.timer.unref();
  }

  /** Deletes the events older than the age bound now (joining a sweep under way); resolves how many went. */
  sweep(): Promise<number> {
    this.running ??= this.deleteExpired().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops sweeping and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async deleteExpired(): Promise<number> {
    if (this.options.maxEventAgeMs === undefined) return 0;
    const cutoff = new Date(Date.now() - this.options.maxEventAgeMs);
    const S = this.connection.qualified;
    // Never an event logged after its task's stored JSON (snapshot_sequence): reads reduce those onto it.
    const text = `DELETE FROM ${S}.task_events WHERE ctid = ANY (ARRAY(SELECT e.ctid FROM ${S}.task_events e WHERE e.created_at < $1
      AND NOT EXISTS (SELECT 1 FROM ${S}.tasks t WHERE t.id = e.task_id AND e.sequence > t.snapshot_sequence) LIMIT $2))`;
    let total = 0;
    try {
      for (;;) {
        const { rowCount } = await this.connection.pool.query(prepared(text, [cutoff, SWEEP_BATCH]));
        total += rowCount ?? 0;
        if ((rowCount ?? 0) < SWEEP_BATCH) return total;
      }
    } catch (error) {
      throw databaseError(error, 'dropping expired events');
    }
  }
}
