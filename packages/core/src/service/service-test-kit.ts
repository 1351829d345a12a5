import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';

/** A promise and the function that resolves it (a gate for tests). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * An agent for tests that must act while a run is under way: `started`
 * resolves with the task id once the agent runs; the agent then waits for
 * `release()` and completes its task with `done`.
 */
export function gatedAgent(): { agent: Agent; started: Promise<string>; release: () => void } {
  const gate = deferred();
  const started = deferred<string>();
  const agent: Agent = async (ctx) => {
    started.resolve(ctx.task.id);
    await gate.promise;
    await ctx.complete('done');
  };
  return { agent, started: started.promise, release: () => gate.resolve() };
}

/** A store whose `commit` is `commit` and whose other calls go to `inner()`, read at each call (a test may swap it). */
export function storeOver(inner: () => TaskStore, commit: TaskStore['commit']): TaskStore {
  return {
    get: (id) => inner().get(id),
    commit,
    list: (query) => inner().list(query),
    delete: (id) => inner().delete(id),
    readEvents: (id, after, limit) => inner().readEvents(id, after, limit),
    close: () => inner().close(),
  };
}

/** What {@link faultyStore} does to the next commits, in order: not stored (`fail`), or stored with its answer lost (`lose`). */
export type CommitFault = 'fail' | 'lose';

/** A memory store that fails on demand (see {@link faultyStore}). */
export interface FaultyStore {
  readonly store: TaskStore;
  /** From now on every read and commit fails, retryably, until {@link up}. */
  down(): void;
  up(): void;
  /** Commits asked for so far. */
  commits: number;
  /** Faults for the next commits, taken one per commit (push to plan them). */
  readonly faults: CommitFault[];
}

/** The error of a store whose database went away: retryable. */
export function unreachable(): A2AError {
  return new A2AError('Internal', 'The task database is unreachable; retry shortly', { retryable: 'true' });
}

/** A memory store whose reads and commits fail when told to: a database that goes away, or a connection that dies after a commit was sent. */
export function faultyStore(inner: TaskStore = createMemoryTaskStore()): FaultyStore {
  let isDown = false;
  const unavailable = () => Promise.reject(unreachable());
  const store: TaskStore = {
    get: (id) => (isDown ? unavailable() : inner.get(id)),
    commit: (request) => {
      faulty.commits++;
      if (isDown) return unavailable();
      const fault = faulty.faults.shift();
      if (fault === 'fail') return unavailable();
      // Stored, but the answer is lost on the way back.
      if (fault === 'lose') return inner.commit(request).then(unavailable);
      return inner.commit(request);
    },
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  const faulty: FaultyStore = { store, down: () => void (isDown = true), up: () => void (isDown = false), commits: 0, faults: [] };
  return faulty;
}
