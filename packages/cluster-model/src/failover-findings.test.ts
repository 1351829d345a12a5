// What issue 43's fixes leave open after an asynchronous failover, each found by a seeded search on a fixed small budget
// and printed (seed, path, shrunk trace, violation): the documented residual (a continuation or a cancel at a replica that
// never saw the lost events reuses n+1) and three reuses beyond it. Each test asserts that its search finds it; a change
// that closes one turns its test red, and the test then moves to failover.test.ts as a search that finds nothing.
import { describe, expect, it } from 'vitest';
import { covered, find, replays, reused } from './failover-search.js';
import { TAKE_OVER_GAP } from './lost-commits.js';
import type { Violation } from './model-state.js';
import type { Action, ModelConfig } from './simulator.js';

/** The sequence number a `sequence-kept` violation names (its subject is `task#seq`). */
const numberOf = (v: Violation): number => Number(v.detail.split(':')[0]!.split('#')[1]);
/** The event a client saw under that number (`kind@replica#n`). */
const sawKind = (v: Violation): string => /a client saw (\w[\w-]*)@/.exec(v.detail)![1]!;

interface Finding {
  readonly name: string;
  readonly config: ModelConfig;
  readonly seed: number;
  readonly budget: number;
  readonly target?: (v: Violation) => boolean;
  /** What the shrunk counterexample must show. */
  readonly check: (v: Violation, actions: readonly Action[]) => void;
}

const FINDINGS: Finding[] = [
  {
    name: 'documented residual: a continuation at a replica that never saw the lost events reuses n+1',
    config: { ...covered, continuations: true },
    seed: 43,
    budget: 500,
    check: (v) => expect(v.cause).toBe('continuation-unseen'),
  },
  {
    name: 'documented residual: a cancel at a replica that never saw the lost events reuses n+1',
    config: { ...covered, cancels: true },
    seed: 1,
    budget: 500,
    check: (v) => expect(v.cause).toBe('cancel-unseen'),
  },
  {
    name: "beyond the residual: a cancel's own commit lost, the holder's self-sweep fails the task under its number",
    config: { ...covered, cancels: true },
    seed: 3,
    budget: 1_000,
    target: (v) => reused(v) && v.cause !== 'cancel-unseen',
    check: (v) => {
      expect(sawKind(v)).toBe('canceled');
      expect(v.cause).toBe('settle-unseen');
    },
  },
  {
    name: "beyond the residual: a take-over's commits after its gap lost, a second take-over from the same gone holder reuses them",
    config: { ...covered, failoverSparesGaps: false },
    seed: 43,
    budget: 1_000,
    check: (v) => {
      expect(numberOf(v)).toBeGreaterThan(TAKE_OVER_GAP);
      expect(v.cause).toMatch(/^(settle|run)-unseen$/);
    },
  },
  {
    name: 'beyond the residual: a take-over whose answer was lost is settled by the self-sweep with no gap',
    config: { ...covered, lostTakeOverAnswers: true },
    seed: 4,
    budget: 300,
    check: (v, actions) => {
      expect(numberOf(v)).toBeLessThan(TAKE_OVER_GAP);
      expect(v.cause).toBe('settle-unseen');
      expect(actions.some((a) => a.t === 'fault' && a.on === 'takeover' && a.kind === 'lost-answer')).toBe(true);
    },
  },
];

describe("asynchronous failover: what issue 43's fixes leave open", () => {
  for (const { name, config, seed, budget, target, check } of FINDINGS) {
    it(`finds ${name}`, { timeout: 120_000 }, () => {
      const result = find(name, config, budget, seed, target);
      expect(result.failed).toBe(true);
      expect(result.violation!.kind).toBe('sequence-kept');
      check(result.violation!, result.actions!);
      expect(replays(config, result)).toBe(true);
    });
  }
});
