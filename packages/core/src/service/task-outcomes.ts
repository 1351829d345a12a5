import type { Message } from '../schema/index.js';
import type { TaskRecord } from '../store/task-store.js';

/**
 * How a request's task came out: a stored task record, or, for a new task
 * the agent answered with a message instead (see `AgentContext.reply`), that
 * message and no task.
 */
export type TaskOutcome =
  | { readonly record: TaskRecord; readonly message?: undefined }
  | { readonly message: Message; readonly record?: undefined };

/** Someone waiting for an outcome: called once, with it or with the failure that ended the wait. */
type Waiter = (outcome: TaskOutcome | undefined, failure?: unknown) => void;

/** A new task held back, unstored, until its first event: whether its storing has begun, and who waits for it. */
interface Creation {
  claimed: boolean;
  readonly waiters: Waiter[];
}

/**
 * The bookkeeping of the engine's waiters: callers waiting for a task to
 * settle, and new tasks held back until their first event (with callers
 * waiting for them to be stored or answered). It never changes task state:
 * the engine tells it what happened.
 */
export class TaskOutcomes {
  private readonly settled = new Map<string, Waiter[]>();
  private readonly creations = new Map<string, Creation>();

  /** True when anyone waits for a task to settle (a cheap test before {@link settle}). */
  get waiting(): boolean {
    return this.settled.size > 0;
  }

  /** Waits for `taskId` to settle (see `TaskEngine.whenSettled`). */
  whenSettled(taskId: string, signal: AbortSignal | undefined): Promise<TaskOutcome | undefined> {
    return wait(this.settled, taskId, signal);
  }

  /** Tells the callers waiting for `taskId` to settle how it came out. */
  settle(taskId: string, outcome: TaskOutcome): void {
    const list = this.settled.get(taskId);
    if (list === undefined) return;
    this.settled.delete(taskId);
    for (const waiter of list) waiter(outcome);
  }

  /** Starts tracking a new task held back until its first event. */
  hold(taskId: string): void {
    this.creations.set(taskId, { claimed: false, waiters: [] });
  }

  /** True while `taskId` is held back and nothing has begun to store or answer it. */
  unclaimed(taskId: string): boolean {
    return this.creations.get(taskId)?.claimed === false;
  }

  /** Marks a held-back task as being stored or answered; false when it was not held back (or already claimed). */
  claim(taskId: string): boolean {
    const creation = this.creations.get(taskId);
    if (creation === undefined || creation.claimed) return false;
    creation.claimed = true;
    return true;
  }

  /** Resolves once a held-back task is stored (its record) or answered (the message); rejects when storing it failed. */
  whenCreated(taskId: string): Promise<TaskOutcome> | undefined {
    const creation = this.creations.get(taskId);
    if (creation === undefined) return undefined;
    return new Promise((resolve, reject) => creation.waiters.push((outcome, failure) => (failure === undefined ? resolve(outcome!) : reject(failure))));
  }

  /** A held-back task was stored or answered: tells its creation waiters, and its settled waiters when it was answered. */
  created(taskId: string, outcome: TaskOutcome): void {
    const creation = this.creations.get(taskId);
    if (creation === undefined) return;
    this.creations.delete(taskId);
    for (const waiter of creation.waiters) waiter(outcome);
    if (outcome.message !== undefined) this.settle(taskId, outcome);
  }

  /** A task's run ended but the task could not be settled (its store failed): the callers waiting for it to settle fail with `error`. */
  abandon(taskId: string, error: unknown): void {
    const list = this.settled.get(taskId);
    if (list === undefined) return;
    this.settled.delete(taskId);
    for (const waiter of list) waiter(undefined, error);
  }

  /**
   * A held-back task could not be stored (or its run refused it): every
   * waiter of it fails, its creation waiters with `error` and its settled
   * waiters with `settledError` (default `error`).
   */
  failed(taskId: string, error: unknown, settledError: unknown = error): void {
    const creation = this.creations.get(taskId);
    if (creation === undefined) return;
    this.creations.delete(taskId);
    const settled = this.settled.get(taskId) ?? [];
    this.settled.delete(taskId);
    for (const waiter of creation.waiters) waiter(undefined, error);
    for (const waiter of settled) waiter(undefined, settledError);
  }
}

function wait(waiters: Map<string, Waiter[]>, taskId: string, signal: AbortSignal | undefined): Promise<TaskOutcome | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const waiter: Waiter =
      signal === undefined ? (outcome, failure) => (failure === undefined ? resolve(outcome) : reject(failure)) : abortable(waiters, taskId, signal, resolve, reject);
    // Most tasks have one waiter: a list of exactly one (a list grown from empty would reserve room for many).
    const list = waiters.get(taskId);
    if (list === undefined) waiters.set(taskId, [waiter]);
    else list.push(waiter);
  });
}

/** A waiter of `taskId` in `waiters` that `signal`'s abort removes (resolving undefined). */
function abortable(
  waiters: Map<string, Waiter[]>,
  taskId: string,
  signal: AbortSignal,
  resolve: (outcome: TaskOutcome | undefined) => void,
  reject: (error: unknown) => void,
): Waiter {
  const onAbort = (): void => {
    const current = waiters.get(taskId);
    const at = current?.indexOf(waiter) ?? -1;
    if (at >= 0) current!.splice(at, 1);
    if (current?.length === 0) waiters.delete(taskId);
    resolve(undefined);
  };
  const waiter: Waiter = (outcome, failure) => {
    signal.removeEventListener('abort', onAbort);
    if (failure === undefined) resolve(outcome);
    else reject(failure);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return waiter;
}
