// The fixed design (issue 42's fixes A-F) over a fixed budget: no sequence of sends, retries, waiting calls,
// pushes, stalls, cut paths, crashes, clean stops, transient errors and lost answers violates an invariant.
// MODEL_SEED=<seed> replays a printed seed (MODEL_PATH=<path> its shrunk counterexample); MODEL_RUNS=<n> extends the search,
// MODEL_ACTIONS=<n> lengthens its sequences (default 60 actions).
import { describe, expect, it } from 'vitest';
import { type InvariantKind, REFINEMENTS } from './model-state.js';
import { type ModelConfig, report as trace, search } from './simulator.js';

const SEED = Number(process.env.MODEL_SEED ?? 20_261_207);
const RUNS = Number(process.env.MODEL_RUNS ?? 2_500);
const PATH = process.env.MODEL_PATH;
const ACTIONS = Number(process.env.MODEL_ACTIONS ?? 60);

/** What a replica of the release before heartbeats may still break by itself (its own liveness defects stay until it is replaced). */
const SAFETY: readonly InvariantKind[] = ['healthy-run-kept', 'one-run-per-epoch', 'acknowledged-kept', 'push-monotonic'];

const SEARCHES: { name: string; config: ModelConfig; kinds?: readonly InvariantKind[] }[] = [
  { name: 'three replicas, rerunOrphans 0', config: { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'new'] } },
  { name: 'three replicas, rerunOrphans 1', config: { design: 'fixed', rerunOrphans: 1, releases: ['new', 'new', 'new'] } },
  { name: 'two replicas beside one of the release before heartbeats, with contract', config: { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'prev'] }, kinds: SAFETY },
];

describe('the model on the fixed design', () => {
  for (const { name, config, kinds } of SEARCHES) {
    it(`finds nothing: ${name}`, { timeout: 300_000 }, () => {
      const result = search({ ...config, seed: SEED, numRuns: RUNS, maxActions: ACTIONS, path: PATH, target: (v) => kinds === undefined || kinds.includes(v.kind) });
      console.info(`fixed, ${name}: ${trace(result)}`);
      expect(result.violation).toBeUndefined();
      expect(result.runs).toBe(PATH === undefined ? RUNS : result.runs);
    });
  }

  const without = (refinement: keyof typeof REFINEMENTS, config: ModelConfig, seed: number, kind: InvariantKind) => {
    REFINEMENTS[refinement] = false;
    try {
      const result = search({ ...config, seed, numRuns: 3_000, maxActions: 60, target: (v) => v.kind === kind });
      console.info(`fixed without ${refinement}: ${trace(result)}`);
      return result.violation?.kind;
    } finally {
      REFINEMENTS[refinement] = true;
    }
  };

  it('needs the contract refusal to see connected replicas of the older release, not only their leases and heartbeats', { timeout: 120_000 }, () => {
    expect(without('contractSeesSessions', { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'prev'] }, 42, 'healthy-run-kept')).toBe('healthy-run-kept');
  });

  it('needs the owed-run claim to leave a row at an epoch this process held (a run given up, a settle that failed) to the self-sweep', { timeout: 120_000 }, () => {
    expect(without('owedClaimSkipsKnown', { design: 'fixed', rerunOrphans: 0, releases: ['new', 'new', 'new'] }, 6, 'at-most-once')).toBe('at-most-once');
  });
});
