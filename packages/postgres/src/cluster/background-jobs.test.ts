import { afterEach, expect, it } from 'vitest';
import { BackgroundJobs } from './background-jobs.js';

const jobs: BackgroundJobs[] = [];
afterEach(() => Promise.all(jobs.splice(0).map((j) => j.stop())));

/** Resolves once `check` holds (looked at every 5 ms). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

it('never lets a failing job end the process: throws and rejections are logged once per streak, retried, and the recovery logged', async () => {
  const lines: string[] = [];
  const logger = { warn: (_f: unknown, m?: string) => void lines.push(`warn ${m}`), error: () => {}, info: (_f: unknown, m?: string) => void lines.push(`info ${m}`) };
  const background = new BackgroundJobs(logger);
  jobs.push(background);
  let runs = 0;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    background.every('catch-up', 10_000, async () => {
      runs++;
      if (runs === 1) throw new Error('thrown at once');
      if (runs < 5) return Promise.reject(new Error('the database is down'));
    }, 40);
    background.trigger('catch-up');
    // Retried after a short wait, not the job's 10 s period; four failures, then it works.
    await until(() => runs >= 5 && lines.some((l) => l.startsWith('info')));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  expect(unhandled).toEqual([]);
  expect(lines.filter((l) => l.startsWith('warn'))).toHaveLength(1);
  expect(lines.filter((l) => l.startsWith('info'))).toEqual(['info Taskwire postgres: the cluster catch-up works again']);
});

it('a logger that throws is contained too', async () => {
  const background = new BackgroundJobs({ warn: () => { throw new Error('logger broke'); }, error: () => {} });
  jobs.push(background);
  let runs = 0;
  background.every('sweep', 10_000, async () => {
    runs++;
    throw new Error('fails');
  }, 20);
  background.trigger('sweep');
  await until(() => runs >= 3);
  expect(runs).toBeGreaterThanOrEqual(3);
});

it('stop resolves only once the run in flight has settled, and nothing starts after it', async () => {
  const background = new BackgroundJobs(undefined);
  jobs.push(background);
  let finish!: () => void;
  let runs = 0;
  background.every('renewal', 10_000, () => {
    runs++;
    return new Promise<void>((resolve) => (finish = resolve));
  });
  background.trigger('renewal');
  expect(runs).toBe(1);
  let stopped = false;
  const stopping = background.stop().then(() => (stopped = true));
  background.trigger('renewal');
  // The run in flight holds stop back (a renewal sent before stop lands before what follows it).
  await new Promise<void>((resolve) => setImmediate(resolve));
  expect(stopped).toBe(false);
  finish();
  await stopping;
  expect(stopped).toBe(true);
  expect(runs).toBe(1);
});
