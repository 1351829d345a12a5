// Issue 42's item 5: the review's unverified suspicions, each played as a fixed trace on the model of both
// designs (the verdicts are in this package's README).
import { describe, expect, it } from 'vitest';
import { TAKE_OVER_GAP } from './lost-commits.js';
import { type Design, isRunning, LEASE, SWEEP_EVERY, type World } from './model-state.js';
import type { RunShape } from './replica-ops.js';
import { type Action, apply, drain, type ModelConfig, play, simulate } from './simulator.js';

const shape = (commits: number, wait: number, ignoresAbort = false): RunShape => ({ commits, wait, ends: 'completed', ignoresAbort });
const send = (r: number, task: number, s: RunShape, blocking = false): Action => ({ t: 'send', r, task, blocking, shape: s });
const cluster = (design: Design, rerunOrphans = 0): ModelConfig => ({ design, rerunOrphans, releases: ['new', 'new', 'new'] });
const kinds = (w: World) => w.violations.map((v) => `${v.kind}${v.cause ? ` (${v.cause})` : ''}`);

describe("item 5: the review's suspicions, settled on the model", () => {
  for (const design of ['old', 'fixed'] as const) {
    it(`an agent that ignores its abort after losing its lease commits nothing that lands (${design})`, () => {
      for (const rerunOrphans of [0, 1]) {
        // Its run commits once (its push delivered), stalls past its lease, is taken over (failed, or re-run at a new epoch), then goes on regardless.
        const w = simulate(cluster(design, rerunOrphans), [send(0, 0, shape(3, 4, true)), { t: 'tick', n: 5 }, { t: 'pause', r: 0, ticks: 14 }, { t: 'tick', n: 30 }]);
        expect(kinds(w)).toEqual([]);
        expect(w.db.tasks.t0!.status).toBe(rerunOrphans === 0 ? 'failed' : 'completed');
        // Each epoch's commits came from one run: the stalled agent's commits at the old epoch were all refused.
        expect(Object.values(w.landed).every((runs) => runs.length === 1)).toBe(true);
        expect(Object.keys(w.landed)).toHaveLength(1 + rerunOrphans);
      }
    });
  }

  it('renewals whose answers are lost: one is harmless; three in a row give the lease up with the heartbeat alive (defect 1), which only the fixed design settles', () => {
    const lostRenewal: Action = { t: 'fault', r: 0, on: 'renew', kind: 'lost-answer' };
    const busy = (faults: number): Action[] => [send(0, 0, shape(3, 15)), ...Array.from({ length: faults }, () => lostRenewal), { t: 'tick', n: 8 }, send(0, 1, shape(3, 15))];
    expect(kinds(simulate(cluster('old'), busy(1)))).toEqual([]);
    expect(kinds(simulate(cluster('old'), busy(3)))).toEqual(['orphan-settles (given-up)']);
    expect(kinds(simulate(cluster('fixed'), busy(3)))).toEqual([]);
  });

  for (const design of ['old', 'fixed'] as const) {
    it(`a clean stop while a grouped commit is in flight: the late commit lands, and the task still settles within a lease (${design})`, () => {
      for (const inFlight of [false, true]) {
        const w = play(cluster(design), [send(0, 0, shape(2, 5), true), { t: 'tick', n: 3 }, { t: 'stop', r: 0, inFlight }]);
        const stoppedAt = w.db.now;
        while (isRunning(w.db.tasks.t0!.status) && w.db.now < stoppedAt + 3 * LEASE) apply(w, { t: 'tick', n: 1 });
        const after = w.db.now - stoppedAt;
        drain(w);
        expect(kinds(w)).toEqual([]);
        expect(w.db.tasks.t0!.status).toBe('failed');
        // Claimed (1), the late commit (2) when in flight, then failed by the replica that took it over: after the
        // take-over gap of issue 43, the stored task logged first.
        expect(w.db.tasks.t0!.seq).toBe((inFlight ? 2 : 1) + TAKE_OVER_GAP + 2);
        // Handed over at once; a late commit pushes the row's expiry one lease on (no heartbeat is left to outlive it).
        expect(after).toBeLessThanOrEqual((inFlight ? LEASE : 0) + SWEEP_EVERY + 1);
      }
    });
  }
});
