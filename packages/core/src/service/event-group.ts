import type { LifecycleEvent, TransitionError } from '../lifecycle/index.js';
import { reduce } from '../lifecycle/index.js';
import type { StreamResponse, Task } from '../schema/index.js';
import { isSettled } from '../schema/index.js';
import type { TaskRecord } from '../store/task-store.js';
import { logEntryOf } from './status-clock.js';

/** What became of one event of a group: reduced into the commit (its log entry's index), a duplicate, or refused. */
type Step =
  | { readonly kind: 'applied'; readonly task: Task; readonly index: number }
  | { readonly kind: 'duplicate'; readonly before: number }
  | { readonly kind: 'refused'; readonly error: TransitionError };

/**
 * A run's events reduced in order onto its task, ready to be committed
 * together: the task after the last one applied, the log entries of those
 * applied (in order), and what became of each event.
 */
export interface ReducedGroup {
  readonly task: Task;
  readonly entries: StreamResponse[];
  readonly steps: readonly Step[];
  /** True when every applied event may be stored alone (see `CommitRequest.appendOnly`): logged as it is, the state unchanged. */
  readonly appendOnly: boolean;
}

/**
 * Reduces `events` (stamped) in order onto `task`, each onto the task
 * the previous ones left, exactly as committing them one by one would: an
 * event the reducer refuses changes nothing and the next one is reduced
 * onto the same task; a duplicate changes nothing either.
 */
export function reduceGroup(task: Task, events: readonly LifecycleEvent[]): ReducedGroup {
  const entries: StreamResponse[] = [];
  const steps: Step[] = [];
  let appendOnly = true;
  let current = task;
  for (const event of events) {
    const result = reduce(current, event);
    if (!result.ok) steps.push({ kind: 'refused', error: result.error });
    else if (result.duplicate) steps.push({ kind: 'duplicate', before: entries.length });
    else {
      const entry = logEntryOf(result.task, event);
      appendOnly &&= entry === event && result.task.status.state === current.status.state;
      entries.push(entry);
      steps.push({ kind: 'applied', task: result.task, index: entries.length - 1 });
      current = result.task;
    }
  }
  return { task: current, entries, steps, appendOnly };
}

/** One event's outcome: its record and whether it was a duplicate, or why it was refused. */
export type StepOutcome<A> = A | { readonly refused: TransitionError };

/**
 * The records of a committed group: one per applied entry, the last one
 * `stored` itself (the record after the commit), the others the task after
 * their own event at the commit's version and their own sequence; and the
 * outcome of each event (a duplicate gets the record before it: `before`
 * when no applied event came first). `settled` is the first record whose
 * task is settled, if any (the one waiters of the task hear of).
 */
export function groupOutcomes(
  group: ReducedGroup,
  before: TaskRecord,
  stored: TaskRecord,
  firstSequence: number,
): { readonly outcomes: StepOutcome<{ readonly record: TaskRecord; readonly duplicate: boolean }>[]; readonly settled: TaskRecord | undefined } {
  const last = group.entries.length - 1;
  // Loops, not flatMap/map/find with closures: this runs once per commit, on every send's path.
  const records: TaskRecord[] = [];
  let settled: TaskRecord | undefined;
  for (const step of group.steps) {
    if (step.kind !== 'applied') continue;
    const record =
      step.index === last ? stored : { task: step.task, owner: stored.owner, version: stored.version, lastSequence: firstSequence + step.index, trace: stored.trace };
    records.push(record);
    if (settled === undefined && isSettled(record.task.status.state)) settled = record;
  }
  const outcomes: StepOutcome<{ readonly record: TaskRecord; readonly duplicate: boolean }>[] = [];
  for (const step of group.steps) {
    if (step.kind === 'refused') outcomes.push({ refused: step.error });
    else if (step.kind === 'applied') outcomes.push({ record: records[step.index]!, duplicate: false });
    else outcomes.push({ record: step.before === 0 ? before : records[step.before - 1]!, duplicate: true });
  }
  return { outcomes, settled };
}

/**
 * Events of one run waiting for their task's lock while the run's previous
 * commit is in flight: they go together in the next commit. The first
 * event's caller holds the lock's promise; each later one gets a promise of
 * its own, settled with its own outcome by {@link settle} or {@link fail}.
 */
export class EventGroup<A> {
  readonly events: LifecycleEvent[];
  private readonly later: { readonly resolve: (applied: A) => void; readonly reject: (error: unknown) => void }[] = [];

  constructor(
    first: LifecycleEvent,
    /** The run the events are of (a group takes events of this run only). */
    readonly run: object,
  ) {
    this.events = [first];
  }

  /** Adds `event` after the others; settles with its own outcome. */
  add(event: LifecycleEvent): Promise<A> {
    this.events.push(event);
    return new Promise<A>((resolve, reject) => this.later.push({ resolve, reject }));
  }

  /** Settles the later events with their outcomes (`refuse` turns a refusal into the error it rejects with); returns the first's outcome. */
  settle(outcomes: readonly StepOutcome<A>[], refuse: (error: TransitionError) => Error): StepOutcome<A> {
    this.later.forEach((member, i) => {
      const outcome = outcomes[i + 1]!;
      if (typeof outcome === 'object' && outcome !== null && 'refused' in outcome) member.reject(refuse(outcome.refused));
      else member.resolve(outcome);
    });
    return outcomes[0]!;
  }

  /** Rejects the later events with `error` (the group's commit failed as a whole). */
  fail(error: unknown): void {
    for (const member of this.later) member.reject(error);
  }
}
