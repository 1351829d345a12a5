/**
 * The state of the cluster model: the database's rows (on the database's
 * clock) and each replica's memory. Times are whole ticks of one logical
 * clock; a lease lasts {@link LEASE} ticks. Plain data only, so a state
 * prints, copies and compares as JSON.
 */

/** A task's lease time to live, in ticks (the real default is 15 s; one tick stands for a tenth of it). */
export const LEASE = 10;
/** Ticks after which a replica gives a lease it could not renew up locally (`SAFE_SHARE` of the lease in lease-keeper.ts). */
export const GIVE_UP = 9;
/** A replica's renewal period (a third of the lease). */
export const RENEW_EVERY = 3;
/** A replica's sweep period (a fifth of the lease). */
export const SWEEP_EVERY = 2;
/** How long a waiting call may still wait once its task settled before it counts as never answered (catch-up and wake-up). */
export const ANSWER_WITHIN = 3;
/** How long a task whose run is gone may stay unsettled: two leases (the README's fault table). */
export const SETTLE_WITHIN = 2 * LEASE;

/** The task states the model distinguishes (running: submitted, working; settled: the rest). */
export type Status = 'submitted' | 'working' | 'input-required' | 'completed' | 'failed';

/** The two designs: the protocol on main before issue 42's fixes, and with them. */
export type Design = 'old' | 'fixed';

/** A row of `tasks` (the lease columns, the state, and what the model needs of the task JSON). */
export interface TaskRow {
  status: Status;
  holder: string | null;
  epoch: number | null;
  /** `lease_expires_at`, on the database's clock. */
  expires: number | null;
  takeovers: number;
  /** `last_sequence`. */
  seq: number;
  /** The user messages' ids, in order (the task's history). */
  messages: string[];
}

/** A row of `push_configs` (one config per task in the model). */
export interface PushRow {
  delivered: number;
  claimHolder: string | null;
  claimExpires: number | null;
}

/** The database. */
export interface Db {
  now: number;
  tasks: Record<string, TaskRow>;
  /** `lease_heartbeats`: holder to expiry. */
  heartbeats: Record<string, number>;
  /** The schema's epoch sequence (`task_lease_epochs`). */
  nextEpoch: number;
  push: Record<string, PushRow>;
  /** Whether the `lease-heartbeats` contract step is recorded. */
  contracted: boolean;
}

/** A run of an agent in a replica. */
export interface Run {
  id: number;
  task: string;
  message: string;
  epoch: number;
  /** Commits still to make; the last settles the task. */
  commitsLeft: number;
  /** Ticks until the next commit. */
  wait: number;
  /** Ticks between two commits. */
  every: number;
  /** The status the last commit leaves. */
  ends: 'completed' | 'input-required';
  /** The agent goes on after its run is aborted (the worst case: as if the runner kept committing its events). */
  ignoresAbort: boolean;
  aborted: boolean;
  /** The task's last sequence as this run last committed it (its in-memory record). */
  seq: number;
}

/** A call waiting for its task to settle (a blocking send, a stream, a resubscribe). */
export interface Waiter {
  id: number;
  task: string;
  /** Old design: the call hears its task through the local run only (false once that run stopped). */
  deaf: boolean;
  /** Follows the local run (a blocking send that started it). */
  local: boolean;
}

/** A push attempt: claimed, waiting for a delivery slot, then sending. */
export interface PushAttempt {
  task: string;
  /** The sequence (task state) it read when it began. */
  seq: number;
  /** The tick it began (it gets its slot at a later tick). */
  at: number;
}

/** The statements a fault can be aimed at. */
export type StatementKind = 'claim' | 'read' | 'commit' | 'settle' | 'renew' | 'takeover' | 'push';

/** A fault waiting in a replica for its next statement of one kind: it does not land, or it lands and its answer is lost. */
export interface Fault {
  readonly on: StatementKind;
  readonly kind: 'transient' | 'lost-answer';
}

/** Why a task's run went away (reported with an orphan that never settled). */
export type GoneWhy = 'given-up' | 'lease-lost' | 'lost-claim-answer' | 'settle-failed' | 'takeover-answer-lost' | 'crash' | 'stop' | 'aborted' | 'store-went-back';

/** A replica process. */
export interface Replica {
  id: string;
  /** `new`: this release (heartbeats); `prev`: a release before heartbeats (renews rows, takes over by the row's expiry alone). */
  release: 'new' | 'prev';
  up: boolean;
  /** A stall (SIGSTOP, a long GC, a VM pause): nothing runs until then. */
  pausedUntil: number;
  /** Every statement fails (the path to the database is cut) until then. */
  cutUntil: number;
  /** Faults waiting for this replica's next statement of their kind (each used once). */
  faults: Fault[];
  /** Leases held here: task to epoch and the tick of the last renewal that reached the database. */
  holds: Record<string, { epoch: number; renewedAt: number }>;
  runs: Run[];
  waiters: Waiter[];
  pushes: PushAttempt[];
  /** When the renewal and the sweep last ran (a job overdue after a stall runs at once). */
  lastRenew: number;
  lastSweep: number;
  /** `task/epoch` of every lease this process held: runs started, rows taken over (the fixed design's owed-run claim takes none of them). */
  known: string[];
  /** Restarts so far (a restarted process has a new holder id). */
  restarts: number;
  /** Task to the newest sequence this process committed or sent a client (`PublishedSequences`; issue 43's fix reads it, a restart forgets it). */
  published: Record<string, number>;
}

/** A violation of one named invariant. */
export interface Violation {
  readonly kind: InvariantKind;
  readonly detail: string;
  /** For `orphan-settles`: why the task's run went away (`GoneWhy`, or `never-ran`). */
  readonly cause?: string;
}

/** The invariants (see the README of this package). */
export type InvariantKind =
  | 'orphan-settles'
  | 'waiter-answered'
  | 'one-run-per-epoch'
  | 'at-most-once'
  | 'push-monotonic'
  | 'acknowledged-kept'
  | 'healthy-run-kept'
  | 'sequence-kept';

/** The whole model: database, replicas, and what the checkers remember. */
export interface World {
  design: Design;
  rerunOrphans: number;
  db: Db;
  replicas: Replica[];
  nextId: number;
  /** task to the tick since which it has had no live run while running (absent: it has one, or it is settled). */
  orphanSince: Record<string, number>;
  /** waiter id to the tick its task was seen settled. */
  settledSeen: Record<number, number>;
  /** `task/epoch` to the runs whose commits landed at that epoch. */
  landed: Record<string, number[]>;
  /** `task/message` to how many runs of that message started. */
  started: Record<string, number>;
  /** The last sequence each push receiver got, per task. */
  received: Record<string, number>;
  /** Messages acknowledged to their client, per task, and the terminal states seen. */
  acked: Record<string, string[]>;
  terminal: Record<string, Status>;
  violations: Violation[];
  /** Why the run of each `task/epoch` went away. */
  why: Record<string, GoneWhy>;
  /** Issue 43's fixes for commits a failover lost (see lost-commits.ts); off: the protocol before them. */
  lostCommitsFix: boolean;
  /** The events logged (`task_events`), per task: sequence to event (`kind@replica#n`, unique per commit). */
  stored: Record<string, Record<number, string>>;
  /** What clients were sent, per task: sequence to event (`sequence-kept`). */
  seen: Record<string, Record<number, string>>;
  /** Tasks ever created (a task a failover lost whole is not created again: its id is the server's). */
  created: Record<string, true>;
  /** The database (and its log) right after each of the newest event commits, the oldest first: what a standby behind may hold. */
  journal: { db: Db; stored: Record<string, Record<number, string>>; top: number }[];
  /** How many states {@link journal} keeps (0: no failover that loses commits, nothing kept). */
  journalLength: number;
  /** An asynchronous failover loses no commit numbered after a take-over's gap (the scenarios issue 43's gap covers; see failover.ts). */
  failoverSparesGaps: boolean;
  /** With {@link lostCommitsFix}: a take-over of the replica's own row goes after the gap too, as the code's does; off: only one from another holder (the fix as first implemented). */
  ownRowsGapped: boolean;
}

/**
 * Two refinements the model found the fixed design needs beyond the fixes
 * as first agreed (see the README); a test turns each off to show the
 * counterexample it prevents. The first is in the code; the second is the
 * operator's part (the code's refusal sees leases only).
 */
export const REFINEMENTS = {
  /** `contract` also refuses while a replica of the older release is connected, not only while it has a live lease (the code checks leases; "Upgrading a cluster" asks the operator to stop those replicas first). */
  contractSeesSessions: true,
  /** The owed-run claim takes no row naming this process at the latest epoch it held (`LeaseCondition.heldEpoch`, in the code since issue 42's review). */
  owedClaimSkipsKnown: true,
};

/** True for submitted and working (`RUNNING_STATE_LIST`). */
export const isRunning = (s: Status): boolean => s === 'submitted' || s === 'working';
/** True for completed and failed (`TERMINAL_STATE_LIST`). */
export const isTerminal = (s: Status): boolean => s === 'completed' || s === 'failed';

/** A new world of `replicas` replicas (`prev` ones of the release before heartbeats), the step not yet recorded when one is `prev`; issue 43's fixes on unless `lostCommitsFix` is false; `journalLength` states kept for an asynchronous failover (`failoverSparesGaps`, `ownRowsGapped`: see {@link World}). */
export function newWorld(
  design: Design,
  rerunOrphans: number,
  releases: readonly ('new' | 'prev')[],
  lostCommitsFix = true,
  journalLength = 0,
  failoverSparesGaps = false,
  ownRowsGapped = true,
): World {
  const w: World = {
    design,
    rerunOrphans,
    db: { now: 0, tasks: {}, heartbeats: {}, nextEpoch: 1, push: {}, contracted: !releases.includes('prev') },
    replicas: releases.map((release, i) => ({
      id: `r${i}`,
      release,
      up: true,
      pausedUntil: 0,
      cutUntil: 0,
      faults: [],
      holds: {},
      runs: [],
      waiters: [],
      pushes: [],
      lastRenew: -i,
      lastSweep: -i,
      known: [],
      restarts: 0,
      published: {},
    })),
    nextId: 1,
    orphanSince: {},
    settledSeen: {},
    landed: {},
    started: {},
    received: {},
    acked: {},
    terminal: {},
    violations: [],
    why: {},
    lostCommitsFix,
    stored: {},
    seen: {},
    created: {},
    journal: [],
    journalLength,
    failoverSparesGaps,
    ownRowsGapped,
  };
  if (journalLength > 0) w.journal.push(structuredClone({ db: w.db, stored: w.stored, top: 0 }));
  return w;
}
