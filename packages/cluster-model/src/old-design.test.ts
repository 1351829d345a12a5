// The model earns its place: run on the design on main before issue 42's fixes, a seeded search finds each
// defect of the issue as a violation of a named invariant, shrinks it to a short trace and replays it.
import { describe, expect, it } from 'vitest';
import type { Violation } from './model-state.js';
import { type ModelConfig, report as trace, search, simulate } from './simulator.js';

/** The seed of every search here (a fixed one: these searches must find what they find in CI, every time). */
const SEED = 42;
/** Sequences each search may run before it counts as not finding its defect. */
const BUDGET = 6_000;

const cluster: ModelConfig = { design: 'old', rerunOrphans: 0, releases: ['new', 'new', 'new'] };
const mixed: ModelConfig = { design: 'old', rerunOrphans: 0, releases: ['new', 'new', 'prev'] };

const orphan = (cause: string) => (v: Violation) => v.kind === 'orphan-settles' && v.cause === cause;
const kind = (k: Violation['kind']) => (v: Violation) => v.kind === k;

const DEFECTS: { n: number; what: string; config: ModelConfig; target: (v: Violation) => boolean }[] = [
  { n: 1, what: 'a lease given up locally after a stall stays unsettled while its replica is busy', config: cluster, target: orphan('given-up') },
  { n: 2, what: 'a claim whose answer was lost stays submitted, never run, while its replica is busy', config: cluster, target: orphan('lost-claim-answer') },
  { n: 3, what: 'a take-over whose settling commit failed once is never settled while the taker is busy', config: cluster, target: orphan('settle-failed') },
  { n: 4, what: 'with rerunOrphans 0 a retried send runs the message a second time', config: cluster, target: kind('at-most-once') },
  { n: 5, what: "a paused replica's push delivers an older state after a newer one", config: cluster, target: kind('push-monotonic') },
  { n: 6, what: 'contract recorded beside a release without heartbeats, which takes a healthy run over', config: mixed, target: kind('healthy-run-kept') },
  { n: 7, what: 'a waiting call whose run stopped is never answered once the task settles elsewhere', config: cluster, target: kind('waiter-answered') },
];

describe('the model on the design before the fixes (old)', () => {
  for (const { n, what, config, target } of DEFECTS) {
    it(`finds defect ${n}: ${what}`, { timeout: 120_000 }, () => {
      const result = search({ ...config, seed: SEED, numRuns: BUDGET, maxActions: 60, target });
      console.info(`defect ${n} (${config.releases.join(',')}, rerunOrphans ${config.rerunOrphans}): ${trace(result)}`);
      expect(result.failed).toBe(true);
      expect(target(result.violation!)).toBe(true);
      // The shrunk trace replays: the same actions violate the same invariant again.
      expect(simulate(config, result.actions!).violations.some(target)).toBe(true);
      // And the fixed design survives the very same trace.
      expect(simulate({ ...config, design: 'fixed' }, result.actions!).violations.some(target)).toBe(false);
    });
  }

  it('replays a counterexample from its seed and path alone', { timeout: 120_000 }, () => {
    const first = search({ ...cluster, seed: SEED, numRuns: BUDGET, maxActions: 60, target: kind('waiter-answered') });
    const again = search({ ...cluster, seed: SEED, numRuns: BUDGET, maxActions: 60, target: kind('waiter-answered'), path: first.path! });
    expect(again.failed).toBe(true);
    expect(again.actions).toEqual(first.actions);
  });
});
