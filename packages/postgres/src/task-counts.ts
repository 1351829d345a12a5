import { MAX_TIMER_MS, type Logger } from '@taskwire/core';
import type pg from 'pg';
import type { Connection } from './connection.js';
import { databaseError } from './database-errors.js';
import { prepared } from './schema-name.js';

/** How often a store folds the count deltas into the counts by default (see {@link TaskCounts}). */
export const COUNT_COMPACTION_MS = 1_000;

/** The task count options of a store (part of `PostgresTaskStoreOptions`). */
export interface TaskCountOptions {
  /**
   * How often this store folds the task count deltas into the counts, in
   * milliseconds (default 1,000; 0: only when the store opens and on
   * `compactCounts()`). Every store sharing the tables may run it: one at a
   * time folds, the others skip. Between compactions ListTasks adds up the
   * deltas written meanwhile, so the interval bounds what a count reads.
   */
  readonly countCompactionIntervalMs?: number;
}

/** The compaction interval of `options`, checked (a RangeError for a negative or non-number one, or a finite one a timer cannot wait). */
export function countCompactionInterval(options: TaskCountOptions): number {
  const value = options.countCompactionIntervalMs ?? COUNT_COMPACTION_MS;
  // Infinity never compacts by itself; a finite value above what a timer can wait would run every millisecond.
  if (!(value >= 0) || (value > MAX_TIMER_MS && value !== Infinity)) {
    throw new RangeError(`countCompactionIntervalMs must be 0 or more, at most ${MAX_TIMER_MS} or Infinity (got ${value})`);
  }
  return value;
}

/** Deltas one compaction statement folds at most (a compaction repeats it while it finds that many). */
const COMPACTION_BATCH = 10_000;

/** The advisory lock of a schema's counts: one process folds deltas (or backfills) at a time. */
const LOCK_KEY = "hashtextextended('taskwire task counts ' || $1, 0)";

/**
 * The statement that folds up to `$2` deltas into the counts, if this
 * process gets the schema's count lock (`$1`: the schema's name) without
 * waiting: the deltas it deletes are exactly the ones it adds (DELETE ...
 * RETURNING), in one statement, so every reader sees them either as deltas
 * or as counts. Writers only insert deltas, so it never holds them up.
 * Returns whether it had the lock, how many deltas it folded, and whether
 * the counts are whole yet (`task_counts_ready`).
 */
export function compactionStatement(S: string): string {
  return `WITH go AS MATERIALIZED (
      SELECT pg_try_advisory_xact_lock(${LOCK_KEY}) AS locked
    ), moved AS (
      DELETE FROM ${S}.task_count_deltas
      WHERE ctid = ANY (ARRAY(SELECT d.ctid FROM ${S}.task_count_deltas d WHERE (SELECT locked FROM go) LIMIT $2))
      RETURNING owner, state, d
    ), folded AS (
      INSERT INTO ${S}.task_counts AS c (owner, state, n)
      SELECT owner, state, sum(d) FROM moved GROUP BY owner, state HAVING sum(d) <> 0
      ON CONFLICT (owner, state) DO UPDATE SET n = c.n + EXCLUDED.n
    )
    SELECT (SELECT locked FROM go) AS locked, (SELECT count(*) FROM moved)::integer AS moved,
      EXISTS (SELECT 1 FROM ${S}.task_counts_ready) AS ready`;
}

/**
 * The statement that makes the counts whole: in one snapshot, what the
 * rows say per (owner, state) minus what counts and deltas say, added as
 * deltas. Every write committed after the count triggers existed left its
 * own deltas, so the difference is exactly the rows written before them,
 * however many writers commit meanwhile (their deltas come after this
 * snapshot, with their rows). Run only under the count lock, so two
 * backfills never add the same difference.
 */
export function backfillStatement(S: string): string {
  return `INSERT INTO ${S}.task_count_deltas (owner, state, d)
    SELECT owner, state, sum(n) FROM (
      SELECT owner, state, count(*) AS n FROM ${S}.tasks GROUP BY owner, state
      UNION ALL SELECT owner, state, -n FROM ${S}.task_counts
      UNION ALL SELECT owner, state, -d FROM ${S}.task_count_deltas
    ) x GROUP BY owner, state HAVING sum(n) <> 0`;
}

/**
 * Completes the counts of `S` (schema `schema`) after the count migration
 * committed, on `client` (outside any transaction): unless they are whole
 * already, takes the schema's count lock (waiting for another backfill),
 * adds the rows that existed before the triggers (see
 * {@link backfillStatement}) and marks the counts whole, in one
 * transaction. It reads the table once (seconds at a million rows) and
 * holds no lock that writers or readers of `tasks` wait for. Resolves
 * whether it added anything. Idempotent.
 */
export async function backfillTaskCounts(client: pg.PoolClient, S: string, schema: string): Promise<boolean> {
  const ready = async () => (await client.query(`SELECT EXISTS (SELECT 1 FROM ${S}.task_counts_ready) AS ready`)).rows[0].ready as boolean;
  if (await ready()) return false;
  // Read committed: each statement after the lock sees what an earlier backfill committed.
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${LOCK_KEY})`, [schema]);
    if (await ready()) {
      await client.query('COMMIT');
      return false;
    }
    await client.query(backfillStatement(S));
    await client.query(`INSERT INTO ${S}.task_counts_ready (ready) VALUES (true)`);
    await client.query('COMMIT');
    return true;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * A store's side of the task counts: whether they are whole yet (until
 * then ListTasks counts rows, as before the counts), and the periodic
 * compaction every `intervalMs` (0 or Infinity: only at `start` and
 * when called) that keeps the deltas few
 * (every process runs it; the one that gets the lock folds, the others
 * skip). Each compaction also learns whether the counts became whole. A
 * failed compaction is logged and tried again at the next tick.
 */
export class TaskCounts {
  private whole = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<number> | undefined;
  private failing = false;

  constructor(
    private readonly connection: Connection,
    private readonly logger: Logger | undefined,
    private readonly intervalMs: number,
  ) {}

  /** True once the counts are whole: ListTasks may read them. */
  get ready(): boolean {
    return this.whole;
  }

  /** Compacts once (which also learns whether the counts are whole), then every `intervalMs`. */
  async start(): Promise<void> {
    await this.compact();
    if (this.intervalMs === 0 || this.intervalMs === Infinity) return;
    this.timer = setInterval(() => {
      this.compact().then(
        () => {
          if (this.failing) this.logger?.info?.({}, 'Taskwire postgres: the task count compaction works again');
          this.failing = false;
        },
        (error: unknown) => {
          if (!this.failing) this.logger?.warn({ error: String(error) }, 'Taskwire postgres: the task count compaction failed; it is tried again at the next interval');
          this.failing = true;
        },
      );
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Folds the deltas into the counts now (joining a compaction under way); resolves how many went (0 when another process holds the lock). */
  compact(): Promise<number> {
    this.running ??= this.fold().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Stops compacting and waits for a compaction under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async fold(): Promise<number> {
    const text = compactionStatement(this.connection.qualified);
    let total = 0;
    try {
      for (;;) {
        type Row = { locked: boolean; moved: number; ready: boolean };
        const { rows } = await this.connection.pool.query<Row>(prepared(text, [this.connection.schema, COMPACTION_BATCH]));
        const row = rows[0]!;
        this.whole ||= row.ready;
        total += row.moved;
        if (!row.locked || row.moved < COMPACTION_BATCH) return total;
      }
    } catch (error) {
      throw databaseError(error, 'compacting the task counts');
    }
  }
}
