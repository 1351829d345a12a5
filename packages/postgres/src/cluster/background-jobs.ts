import type { Logger } from '@taskwire/core';

interface Job {
  readonly kind: string;
  readonly everyMs: number;
  readonly maxBackoffMs: number;
  readonly run: () => Promise<void>;
  busy: boolean;
  failures: number;
  /** A retry scheduled after a failure (the periodic runs wait for it). */
  retry: NodeJS.Timeout | undefined;
}

/** The first wait before a failed job is tried again (it doubles with each failure in a row, up to the job's cap). */
const FIRST_RETRY_MS = 250;

/**
 * The coordinator's periodic work (renewals, the sweep, the catch-up): each
 * kind runs every `everyMs`, never twice at once, and never lets an error
 * escape. A failure is logged once when a streak of failures starts (and
 * once when the job works again), and the job is tried again soon (after
 * 250 ms, doubling with each failure in a row up to `maxBackoffMs`), so a
 * database that is down costs neither a log line per second nor a crash,
 * and one that is back is used again at once.
 */
export class BackgroundJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly timers: NodeJS.Timeout[] = [];
  /** The runs in flight, settled or not yet (each removes itself when it settles). */
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly logger: Logger | undefined) {}

  /** Runs `run` every `everyMs` from now on, and retries a failed run after at most `maxBackoffMs` (see the class comment). */
  every(kind: string, everyMs: number, run: () => Promise<void>, maxBackoffMs = everyMs): void {
    const job: Job = { kind, everyMs, maxBackoffMs, run, busy: false, failures: 0, retry: undefined };
    this.jobs.set(kind, job);
    const timer = setInterval(() => {
      if (job.retry === undefined) this.start(job);
    }, everyMs);
    timer.unref();
    this.timers.push(timer);
  }

  /** Runs the job of `kind` now (after a reconnection, say), unless it is running already or the jobs are stopped. */
  trigger(kind: string): void {
    const job = this.jobs.get(kind);
    if (job) this.start(job);
  }

  /**
   * Stops every job: nothing starts after this call, and the promise
   * resolves once the runs in flight have settled (so a renewal sent just
   * before cannot land after what the caller does next). Idempotent.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    for (const job of this.jobs.values()) clearTimeout(job.retry);
    await Promise.all([...this.running]);
  }

  private start(job: Job): void {
    clearTimeout(job.retry);
    job.retry = undefined;
    if (job.busy || this.stopped) return;
    job.busy = true;
    let outcome: Promise<void>;
    try {
      outcome = job.run();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    const settled: Promise<void> = outcome
      .then(
        () => {
          if (job.failures > 0) this.logger?.info?.({ job: job.kind, failures: job.failures }, `Taskwire postgres: the cluster ${job.kind} works again`);
          job.failures = 0;
        },
        (error: unknown) => {
          job.failures++;
          if (!this.stopped) {
            job.retry = setTimeout(() => this.start(job), Math.min(FIRST_RETRY_MS * 2 ** (job.failures - 1), job.maxBackoffMs));
            job.retry.unref();
          }
          if (job.failures === 1) {
            this.logger?.warn({ job: job.kind, error: String(error) }, `Taskwire postgres: the cluster ${job.kind} failed; it is retried with backoff (logged again once it works)`);
          }
        },
      )
      // Even a logger that throws must not end the process.
      .catch(() => undefined)
      .finally(() => {
        job.busy = false;
        this.running.delete(settled);
      });
    this.running.add(settled);
  }
}
