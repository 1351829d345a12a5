/**
 * What the failover searches share (failover.test.ts and
 * failover-findings.test.ts): the cluster, the scenarios issue 43's fixes
 * cover, and a search for a reused sequence number that prints what it found.
 */
import type { Violation } from './model-state.js';
import { type ModelConfig, report, type SearchResult, search, simulate } from './simulator.js';

/** Three replicas of this release, the fixed design of issue 42, rerunOrphans 0. */
export const cluster: ModelConfig = { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'new'] };

/**
 * Asynchronous failovers within what issue 43's fixes cover: no
 * continuation and no cancel (the documented residual), no take-over whose
 * answer is lost, and no commit lost that was numbered after a take-over's gap.
 */
export const covered: ModelConfig = { ...cluster, failover: 'async', continuations: false, lostTakeOverAnswers: false, failoverSparesGaps: true };

/** The violations these searches look for. */
export const reused = (v: Violation): boolean => v.kind === 'sequence-kept';

/** The sequence number a `sequence-kept` violation names (its subject is `task#seq`). */
export const numberOf = (v: Violation): number => Number(v.detail.split(':')[0]!.split('#')[1]);

/** The event a client saw under the number a `sequence-kept` violation names (`kind@replica#n`). */
export const sawKind = (v: Violation): string => /a client saw (\w[\w-]*)@/.exec(v.detail)![1]!;

/** A search of the failover scenarios: see {@link finder}. */
export type Find = (name: string, config: ModelConfig, numRuns: number, seed: number, target?: (v: Violation) => boolean) => SearchResult;

/**
 * A search that gives `print` one line per search: `find(name, config,
 * numRuns, seed, target?)` searches `config` with `seed` over `numRuns`
 * sequences of up to 60 actions for a violation `target` accepts (a reused
 * number by default) and prints what it found under `name`.
 */
export function finder(print: (line: string) => void): Find {
  return (name, config, numRuns, seed, target = reused) => {
    const result = search({ ...config, seed, numRuns, maxActions: 60, target });
    print(`${name}: ${report(result)}${result.violation?.cause ? ` (${result.violation.cause})` : ''}`);
    return result;
  };
}

/** True when the shrunk counterexample of `result` replays on `config`: the same actions reuse a number again. */
export function replays(config: ModelConfig, result: SearchResult): boolean {
  return simulate(config, result.actions!).violations.some(reused);
}
