import type { Logger } from '@taskwire/core';

interface Job {
  readonly kind: string;
  readonly everyMs: number;
  readonly maxBackoffMs: number;
  readonly run: () => Promise<void>;
  busy: boolean;
  failures: number;
  notBefore: number;
}

/**
 * The coordinator's periodic work (renewals, the sweep, the catch-up): each
 * kind runs every `everyMs`, never twice at once, and never lets an error
 * escape. A failure is logged once when a streak of failures starts (and
 * once when the job works again), and the job backs off meanwhile (doubling
 * its wait up to `maxBackoffMs`), so a database that is down costs neither
 * a log line per second nor a crash.
 */
export class BackgroundJobs {
  private readonly jobs = new Map<string, Job>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly logger: Logger | undefined) {}

  /** Runs `run` every `everyMs` from now on (see the class comment). */
  every(kind: string, everyMs: number, run: () => Promise<void>, maxBackoffMs = everyMs): void {
    const job: Job = { kind, everyMs, maxBackoffMs: Math.max(everyMs, maxBackoffMs), run, busy: false, failures: 0, notBefore: 0 };
    this.jobs.set(kind, job);
    const timer = setInterval(() => {
      if (Date.now() >= job.notBefore) this.start(job);
    }, everyMs);
    timer.unref();
    this.timers.push(timer);
  }

  /** Runs the job of `kind` now (after a reconnection, say), unless it is running already or the jobs are stopped. */
  trigger(kind: string): void {
    const job = this.jobs.get(kind);
    if (job) this.start(job);
  }

  /** Stops every job (one in flight finishes; nothing starts after). Idempotent. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  private start(job: Job): void {
    if (job.busy || this.stopped) return;
    job.busy = true;
    let outcome: Promise<void>;
    try {
      outcome = job.run();
    } catch (error) {
      outcome = Promise.reject(error);
    }
    outcome
      .then(
        () => {
          if (job.failures > 0) this.logger?.info?.({ job: job.kind, failures: job.failures }, `Taskwire postgres: the cluster ${job.kind} works again`);
          job.failures = 0;
          job.notBefore = 0;
        },
        (error: unknown) => {
          job.failures++;
          if (job.failures === 1) {
            this.logger?.warn({ job: job.kind, error: String(error) }, `Taskwire postgres: the cluster ${job.kind} failed; it is retried with backoff (logged again once it works)`);
          }
          job.notBefore = Date.now() + Math.min(job.everyMs * 2 ** (job.failures - 1), job.maxBackoffMs);
        },
      )
      // Even a logger that throws must not end the process.
      .catch(() => undefined)
      .finally(() => (job.busy = false));
  }
}
