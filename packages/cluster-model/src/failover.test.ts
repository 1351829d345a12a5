// Issue 43 on the model: PostgreSQL failovers (synchronous: nothing lost; asynchronous: the newest commits lost across
// tasks) and the invariant `sequence-kept`: no sequence number a client saw is later stored or sent with another event.
// Each search runs a fixed seed on a fixed budget and prints what it found (seed, path, shrunk trace, violation).
import { TAKE_OVER_SEQUENCE_GAP } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { TAKE_OVER_GAP } from './lost-commits.js';
import type { Violation } from './model-state.js';
import { type ModelConfig, report as trace, type SearchResult, search, simulate } from './simulator.js';

const SEED = Number(process.env.MODEL_SEED ?? 43);
const RUNS = Number(process.env.MODEL_RUNS ?? 1_500);

const cluster: ModelConfig = { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'new'] };
/** What issue 43's fixes cover: no continuation, no take-over whose answer is lost, no commit lost that was numbered after a take-over's gap. */
const covered: ModelConfig = { ...cluster, failover: 'async', continuations: false, lostTakeOverAnswers: false, failoverSparesGaps: true };
const reused = (v: Violation) => v.kind === 'sequence-kept';

/** Searches `config` for a reused sequence number and prints what it found under `name`. */
function find(name: string, config: ModelConfig, numRuns: number, seed = SEED): SearchResult {
  const result = search({ ...config, seed, numRuns, maxActions: 60, target: reused });
  console.info(`${name}: ${trace(result)}${result.violation?.cause ? ` (${result.violation.cause})` : ''}`);
  return result;
}

/** The shrunk counterexample replays: the same actions reuse a number again. */
function replays(config: ModelConfig, result: SearchResult): boolean {
  return simulate(config, result.actions!).violations.some(reused);
}

describe('failover: sequence numbers clients saw are never reused', () => {
  it("finds the reuse on the design before issue 43's fixes, and the fixes survive its trace", { timeout: 120_000 }, () => {
    const before: ModelConfig = { ...cluster, failover: 'async', lostCommitsFix: false };
    const result = find('before issue 43, asynchronous failover', before, 200);
    expect(result.failed).toBe(true);
    expect(result.violation!.kind).toBe('sequence-kept');
    expect(replays(before, result)).toBe(true);
    expect(replays({ ...before, lostCommitsFix: true }, result)).toBe(false);
  });

  for (const rerunOrphans of [0, 1]) {
    it(`finds nothing with synchronous failovers (every invariant, rerunOrphans ${rerunOrphans})`, { timeout: 120_000 }, () => {
      const result = search({ ...cluster, rerunOrphans, failover: 'sync', seed: SEED, numRuns: RUNS, maxActions: 60 });
      console.info(`fixed, synchronous failover, rerunOrphans ${rerunOrphans}: ${trace(result)}`);
      expect(result.violation).toBeUndefined();
      expect(result.runs).toBe(RUNS);
    });

    it(`finds no reuse with asynchronous failovers within what the fixes cover (rerunOrphans ${rerunOrphans})`, { timeout: 120_000 }, () => {
      const result = find(`fixed, asynchronous failover, covered, rerunOrphans ${rerunOrphans}`, { ...covered, rerunOrphans }, RUNS);
      expect(result.violation).toBeUndefined();
      expect(result.runs).toBe(RUNS);
      // The same scenarios hold the defect the fixes remove: without them, the same search finds a reuse.
      expect(find(`the same without the fixes, rerunOrphans ${rerunOrphans}`, { ...covered, rerunOrphans, lostCommitsFix: false }, RUNS).failed).toBe(true);
    });
  }

  it('finds the documented residual: a continuation at a replica that never saw the lost events reuses n+1', { timeout: 120_000 }, () => {
    const config: ModelConfig = { ...covered, continuations: true };
    const result = find('known residual (continuation)', config, 500);
    expect(result.failed).toBe(true);
    expect(result.violation!.cause).toBe('continuation-unseen');
    expect(replays(config, result)).toBe(true);
  });

  it("finds a reuse beyond the documented residual: a take-over's commits after its gap lost, a second taker reuses them", { timeout: 120_000 }, () => {
    const config: ModelConfig = { ...covered, failoverSparesGaps: false };
    const result = find('beyond the residual (a second take-over)', config, 1_000);
    expect(result.failed).toBe(true);
    const seq = Number(result.violation!.detail.split(':')[0]!.split('#')[1]);
    expect(seq).toBeGreaterThan(TAKE_OVER_GAP);
    expect(result.violation!.cause).toMatch(/^(settle|run)-unseen$/);
    expect(replays(config, result)).toBe(true);
  });

  it("finds a reuse beyond the documented residual: a take-over whose answer was lost is settled by the self-sweep with no gap", { timeout: 120_000 }, () => {
    const config: ModelConfig = { ...covered, lostTakeOverAnswers: true };
    const result = find('beyond the residual (a lost take-over answer)', config, 300, 4);
    expect(result.failed).toBe(true);
    expect(result.violation!.cause).toBe('settle-unseen');
    expect(result.actions!.some((a) => a.t === 'fault' && a.on === 'takeover' && a.kind === 'lost-answer')).toBe(true);
    expect(replays(config, result)).toBe(true);
  });

  it('a synchronous failover during a run loses nothing: the run commits on the new primary, the waiting client gets every number once', () => {
    const shape = { commits: 3, wait: 2, ends: 'completed', ignoresAbort: false } as const;
    const w = simulate({ ...cluster, failover: 'sync' }, [
      { t: 'send', r: 0, task: 0, blocking: true, shape },
      { t: 'tick', n: 3 },
      { t: 'failover', lose: 0, ticks: 2 },
      { t: 'tick', n: 6 },
    ]);
    expect(w.violations).toEqual([]);
    expect(w.db.tasks.t0!.status).toBe('completed');
    expect(Object.keys(w.seen.t0!).map(Number)).toEqual([1, 2, 3, 4]);
    expect(w.seen.t0).toEqual(w.stored.t0);
  });

  it("numbers a take-over's first event after core's gap", () => {
    expect(TAKE_OVER_GAP).toBe(TAKE_OVER_SEQUENCE_GAP);
  });
});
