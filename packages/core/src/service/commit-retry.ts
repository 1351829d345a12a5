import { A2AError } from '../errors.js';
import type { StreamResponse } from '../schema/index.js';
import type { TaskRecord, TaskStore } from '../store/task-store.js';

/** How long a run's commit is retried while its store is unreachable, when no lease bounds it (one process on its store). */
export const RUN_COMMIT_RETRY_MS = 15_000;
/** Waits between retries of a run's commit, in ms (the last one repeats). */
const RETRY_DELAYS_MS = [50, 100, 250, 500, 1_000];

/** What a retried commit knows of the run that made it: an aborted run (its lease lost, the service closing) stops retrying. */
export interface RetryingRun {
  readonly aborted?: boolean;
}

/**
 * True when a store said the call may succeed if made again (its database
 * was unreachable or dropped the connection): an {@link A2AError} whose
 * metadata says `retryable: "true"`.
 */
export function retryable(error: unknown): boolean {
  return A2AError.is(error) && error.metadata?.retryable === 'true';
}

/** Resolves after the wait before retry number `attempt` (0-based). */
export function pause(attempt: number): Promise<void> {
  const ms = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]!;
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The retries of one event of a run (see `TaskEngine.apply`): while the
 * store says it is unreachable, the run's reads and commits are tried again
 * after a pause, until the run is stopped (its lease lost, the service
 * closing) or `windowMs` has passed since the first failure. Events not of
 * a run (`run` undefined) are never retried here: their caller gets the
 * retryable error.
 */
export class RunRetries {
  /** Every attempt whose outcome is unknown (one per distinct log position and entry), in the order sent. */
  readonly unknown: UnknownCommit[] = [];
  private until: number | undefined;
  private count = 0;

  constructor(
    private readonly run: RetryingRun | undefined,
    private readonly windowMs: number,
  ) {}

  /**
   * Resolves true, after a pause, when the failed call may be made again;
   * false when it must not (the error is not retryable, the run stopped,
   * the time is up). `sent` describes a commit whose outcome is unknown.
   */
  async again(error: unknown, sent?: UnknownCommit): Promise<boolean> {
    this.until ??= Date.now() + this.windowMs;
    if (this.run === undefined || !retryable(error) || this.run.aborted || Date.now() >= this.until) return false;
    if (sent !== undefined && !this.unknown.some((u) => u.lastSequence === sent.lastSequence && u.entry === sent.entry)) this.unknown.push(sent);
    await pause(this.count++);
    return true;
  }
}

/**
 * A commit of a run whose outcome is unknown (its connection died after it
 * was sent): the log's last sequence it was made at and its first log
 * entry, as JSON. When a later attempt meets a version conflict, the entry
 * after that sequence tells whether the lost attempt landed after all.
 */
export interface UnknownCommit {
  readonly lastSequence: number;
  readonly entry: string;
}

/** A commit found to have landed after all: the stored record now, its first log entry, and the attempt it was. */
export interface LandedCommit {
  readonly record: TaskRecord;
  readonly entry: StreamResponse;
  readonly attempt: UnknownCommit;
}

/**
 * The stored record and log entry when one of the commits `unknown`
 * describes did land (its entry follows its sequence in the log);
 * undefined when none did. Every attempt is checked: an event is stamped
 * once, but attempts made after a version conflict sit at other positions.
 */
export async function landedCommit(store: TaskStore, taskId: string, unknown: readonly UnknownCommit[]): Promise<LandedCommit | undefined> {
  for (const attempt of unknown) {
    const [next] = await store.readEvents(taskId, attempt.lastSequence, 1);
    if (next === undefined || JSON.stringify(next.event) !== attempt.entry) continue;
    const record = await store.get(taskId);
    return record && { record, entry: next.event, attempt };
  }
  return undefined;
}
