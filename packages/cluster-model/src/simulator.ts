/**
 * The deterministic simulator and its search: fast-check draws sequences
 * of actions (clients' calls, faults, ticks of the clock), the simulator
 * applies them to a {@link World} and checks the invariants after each
 * step; a failing sequence is shrunk and replays from its seed and path.
 */
import fc from 'fast-check';
import { cancel } from './cancel.js';
import { contract, crash, cut, inject, pause, restart, retry, send, stop, subscribe } from './client-actions.js';
import { failover, MAX_LOST_COMMITS } from './failover.js';
import { checkInvariants } from './invariants.js';
import { type Design, GIVE_UP, LEASE, newWorld, SETTLE_WITHIN, type StatementKind, type Violation, type World } from './model-state.js';
import type { RunShape } from './replica-ops.js';
import { tick } from './replica-tick.js';

/** One action of a drawn sequence (replica and task by index). */
export type Action =
  | { readonly t: 'tick'; readonly n: number }
  | { readonly t: 'send' | 'retry'; readonly r: number; readonly task: number; readonly blocking: boolean; readonly shape: RunShape }
  | { readonly t: 'subscribe' | 'crash' | 'restart' | 'cancel'; readonly r: number; readonly task: number }
  | { readonly t: 'fault'; readonly r: number; readonly on: StatementKind; readonly kind: 'transient' | 'lost-answer' }
  | { readonly t: 'pause' | 'cut'; readonly r: number; readonly ticks: number }
  | { readonly t: 'stop'; readonly r: number; readonly inFlight: boolean }
  | { readonly t: 'contract' }
  | { readonly t: 'failover'; readonly lose: number; readonly ticks: number };

/** The cluster a search runs on. */
export interface ModelConfig {
  readonly design: Design;
  readonly rerunOrphans: number;
  /** One entry per replica: `new`, or `prev` (the release before heartbeats). */
  readonly releases: readonly ('new' | 'prev')[];
  /** Failovers drawn: none (unset), synchronous (nothing lost) or asynchronous (the newest event commits lost). */
  readonly failover?: 'sync' | 'async';
  /** Issue 43's fixes (see lost-commits.ts); unset: on. */
  readonly lostCommitsFix?: boolean;
  /** False: no run ends input-required, so no task is continued (the scenarios issue 43's fixes cover); unset: true. */
  readonly continuations?: boolean;
  /** True: clients cancel tasks (CancelTask with no grace); unset: false. */
  readonly cancels?: boolean;
  /** False: no take-over's answer is lost (a fault aimed at one is transient); unset: true. */
  readonly lostTakeOverAnswers?: boolean;
  /** True: an asynchronous failover loses no commit numbered after a take-over's gap (see failover.ts); unset: false. */
  readonly failoverSparesGaps?: boolean;
  /** False: with issue 43's fixes, a take-over of a replica's own row keeps consecutive numbers (the fix as first implemented); unset: true (after the gap, as the code). */
  readonly ownRowsGapped?: boolean;
}

const TASKS = 4;

/** The actions fast-check draws for `config` (ticks weigh most: time must pass for leases to expire). */
export function actionArb(config: ModelConfig): fc.Arbitrary<Action> {
  const r = fc.nat({ max: config.releases.length - 1 });
  const task = fc.nat({ max: TASKS - 1 });
  const shape = fc.record({
    commits: fc.integer({ min: 1, max: 3 }),
    wait: fc.integer({ min: 1, max: 15 }),
    ends: config.continuations === false ? fc.constant('completed' as const) : fc.constantFrom('completed' as const, 'completed' as const, 'input-required' as const),
    ignoresAbort: fc.boolean(),
  });
  // Stalls near a lease's length weigh more: there the local give-up, the heartbeat's expiry and the sweeps race.
  const stall = fc.oneof(fc.integer({ min: 1, max: 25 }), fc.integer({ min: GIVE_UP - 1, max: LEASE + 2 }));
  const on = fc.constantFrom<StatementKind>('claim', 'read', 'commit', 'settle', 'renew', 'takeover', 'push');
  const fault = fc.record({ t: fc.constant('fault' as const), r, on, kind: fc.constantFrom('transient' as const, 'lost-answer' as const) });
  const failovers = config.failover === undefined ? [] : [{ weight: 1, arbitrary: failoverArb(config.failover) }];
  const cancels = config.cancels === true ? [{ weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), r, task }) }] : [];
  return fc.oneof(
    ...failovers,
    ...cancels,
    { weight: 10, arbitrary: fc.record({ t: fc.constant('tick' as const), n: fc.integer({ min: 1, max: 6 }) }) },
    { weight: 5, arbitrary: fc.record({ t: fc.constantFrom('send' as const, 'retry' as const), r, task, blocking: fc.boolean(), shape }) },
    { weight: 2, arbitrary: fc.record({ t: fc.constantFrom('subscribe' as const, 'crash' as const, 'restart' as const), r, task }) },
    { weight: 3, arbitrary: config.lostTakeOverAnswers === false ? fault.map((f) => (f.on === 'takeover' ? { ...f, kind: 'transient' as const } : f)) : fault },
    { weight: 3, arbitrary: fc.record({ t: fc.constantFrom('pause' as const, 'cut' as const), r, ticks: stall }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('stop' as const), r, inFlight: fc.boolean() }) },
    { weight: config.releases.includes('prev') ? 1 : 0, arbitrary: fc.constant({ t: 'contract' as const }) },
  );
}

/** A failover: synchronous loses nothing; asynchronous loses 1 to {@link MAX_LOST_COMMITS} of the newest event commits; replicas reconnect after 0 to 2 ticks. */
function failoverArb(kind: 'sync' | 'async'): fc.Arbitrary<Action> {
  const lose = kind === 'sync' ? fc.constant(0) : fc.integer({ min: 1, max: MAX_LOST_COMMITS });
  return fc.record({ t: fc.constant('failover' as const), lose, ticks: fc.integer({ min: 0, max: 2 }) });
}

/** Applies one action (a tick action checks the invariants after each of its ticks). */
export function apply(w: World, action: Action): void {
  if (action.t === 'tick') {
    for (let i = 0; i < action.n; i++) {
      tick(w);
      checkInvariants(w);
    }
    return;
  }
  if (action.t === 'contract') contract(w);
  else if (action.t === 'failover') failover(w, action.lose, action.ticks);
  else {
    const replica = w.replicas[action.r]!;
    const task = 'task' in action ? `t${action.task}` : '';
    if (action.t === 'send') send(w, replica, task, action.shape, action.blocking);
    else if (action.t === 'retry') retry(w, replica, task, action.shape, action.blocking);
    else if (action.t === 'subscribe') subscribe(w, replica, task);
    else if (action.t === 'cancel') cancel(w, replica, task);
    else if (action.t === 'crash') crash(w, replica);
    else if (action.t === 'restart') restart(w, replica);
    else if (action.t === 'fault') inject(replica, { on: action.on, kind: action.kind });
    else if (action.t === 'pause') pause(w, replica, action.ticks);
    else if (action.t === 'cut') cut(w, replica, action.ticks);
    else if (action.t === 'stop') stop(w, replica, action.inFlight);
  }
  checkInvariants(w);
}

/** Runs `actions` on a new world (invariants checked after each). */
export function play(config: ModelConfig, actions: readonly Action[]): World {
  const w = newWorld(config.design, config.rerunOrphans, config.releases, config.lostCommitsFix ?? true, config.failover === 'async' ? MAX_LOST_COMMITS + 1 : 0, config.failoverSparesGaps === true, config.ownRowsGapped ?? true);
  for (const action of actions) apply(w, action);
  return w;
}

/** Lets the clock of `w` run with no more faults long enough for every bound to fall due. */
export function drain(w: World): World {
  for (const replica of w.replicas) replica.faults = [];
  apply(w, { t: 'tick', n: SETTLE_WITHIN + 10 });
  return w;
}

/** Runs `actions` on a new world, then drains it (see {@link drain}). */
export function simulate(config: ModelConfig, actions: readonly Action[]): World {
  return drain(play(config, actions));
}

/** A search's budget and what it looks for. */
export interface SearchOptions extends ModelConfig {
  readonly seed: number;
  readonly numRuns: number;
  /** Actions per sequence, at most. */
  readonly maxActions: number;
  /** The violations searched for (default: any). */
  readonly target?: (v: Violation) => boolean;
  /** A counterexample path to replay (fast-check's `path`). */
  readonly path?: string;
}

/** What a search found. */
export interface SearchResult {
  readonly failed: boolean;
  readonly seed: number;
  /** Sequences run until the first counterexample (or all of them). */
  readonly runs: number;
  /** Actions applied until the first counterexample (or in all). */
  readonly steps: number;
  /** The shrunk counterexample and its violation. */
  readonly actions?: readonly Action[];
  readonly violation?: Violation;
  readonly path?: string;
}

/** Searches `options.numRuns` drawn sequences for a violation; resolves the shrunk counterexample, if any. */
export function search(options: SearchOptions): SearchResult {
  const target = options.target ?? (() => true);
  let steps = 0;
  let found = false;
  const property = fc.property(fc.array(actionArb(options), { maxLength: options.maxActions, size: 'max' }), (actions) => {
    if (!found) steps += actions.length;
    const hit = simulate(options, actions).violations.some(target);
    if (hit) found = true;
    return !hit;
  });
  const details = fc.check(property, { seed: options.seed, numRuns: options.numRuns, path: options.path, endOnFailure: false });
  if (!details.failed || details.counterexample === null) return { failed: false, seed: details.seed, runs: details.numRuns, steps };
  const actions = details.counterexample[0];
  const violation = simulate(options, actions).violations.find(target);
  return { failed: true, seed: details.seed, runs: details.numRuns, steps, actions, violation, path: details.counterexamplePath ?? undefined };
}

/** The counterexample as lines for a log: the seed and path to replay it, the actions, the violation. */
export function report(result: SearchResult): string {
  const lines = [`seed ${result.seed}${result.path ? ` path ${result.path}` : ''}: ${result.runs} runs, ${result.steps} actions`];
  for (const action of result.actions ?? []) lines.push(`  ${JSON.stringify(action)}`);
  if (result.violation) lines.push(`  => ${result.violation.kind}: ${result.violation.detail}`);
  return lines.join('\n');
}
