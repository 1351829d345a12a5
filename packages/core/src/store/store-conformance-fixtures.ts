import type { StreamResponse, Task, TaskState } from '../schema/task.js';
import type { CommitRequest, TaskStore } from './task-store.js';

/** What a conformance run opens for each test: a fresh, empty store of any kind that can be closed. */
export interface StoreHarness<S extends { close(): Promise<void> }> {
  readonly store: S;
  /**
   * Opens a new store on the same data. The suite closes the previous store
   * first. Provide it for durable adapters: the suite then checks that every
   * acknowledged write survives.
   */
  readonly reopen?: () => Promise<S>;
  /** Removes whatever the store left behind (temp dirs); called after the store is closed. */
  readonly cleanup?: () => Promise<void>;
}

/** The harness of the TaskStore suite. */
export type TaskStoreHarness = StoreHarness<TaskStore>;

/** A harness as a test sees it: `store` follows `reopen`. */
export interface StoreContext<S> {
  store: S;
  /** Closes `store`, reopens it (when the adapter is durable) and returns the new one. */
  reopen(): Promise<S>;
}

/** The context of a TaskStore conformance test. */
export type ConformanceContext = StoreContext<TaskStore>;

/** Wraps a conformance test body as a vitest test function. */
export type ConformanceRunner = (fn: (ctx: ConformanceContext) => Promise<void>) => () => Promise<void>;

/**
 * Runs `fn` on a fresh store from `open`, then closes the store and cleans
 * up. Shared by every store conformance suite (tasks, push configs).
 */
export async function withConformanceStore<S extends { close(): Promise<void> }>(
  open: () => Promise<StoreHarness<S>>,
  fn: (ctx: StoreContext<S>) => Promise<void>,
): Promise<void> {
  const harness = await open();
  const ctx: StoreContext<S> = {
    store: harness.store,
    async reopen() {
      if (!harness.reopen) throw new Error('this store has no reopen');
      await ctx.store.close();
      ctx.store = await harness.reopen();
      return ctx.store;
    },
  };
  try {
    await fn(ctx);
  } finally {
    await ctx.store.close().catch(() => undefined);
    await harness.cleanup?.();
  }
}

/** `2025-01-01T00:00:00.000Z` plus `seconds`, as a status timestamp. */
export function testTimestamp(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/** Shape of a test task made by {@link testTask}. */
export interface TestTaskOptions {
  contextId?: string;
  state?: TaskState;
  /** Seconds after the epoch of {@link testTimestamp}; a string is used as is; `null` leaves it out. */
  at?: number | string | null;
  history?: number;
  artifacts?: number;
}

/** A valid task with `history` messages `m0..` and `artifacts` artifacts `a0..`. */
export function testTask(id: string, options: TestTaskOptions = {}): Task {
  const contextId = options.contextId ?? 'ctx-1';
  const at = options.at === undefined ? 0 : options.at;
  const task: Task = {
    id,
    contextId,
    status: { state: options.state ?? 'TASK_STATE_WORKING' },
  };
  if (at !== null) task.status.timestamp = typeof at === 'string' ? at : testTimestamp(at);
  if (options.history !== undefined) {
    task.history = Array.from({ length: options.history }, (_, i) => ({
      messageId: `m${i}`,
      contextId,
      taskId: id,
      role: i % 2 ? ('ROLE_AGENT' as const) : ('ROLE_USER' as const),
      parts: [{ text: `message ${i}` }],
    }));
  }
  if (options.artifacts !== undefined) {
    task.artifacts = Array.from({ length: options.artifacts }, (_, i) => ({ artifactId: `a${i}`, parts: [{ text: `artifact ${i}` }] }));
  }
  return task;
}

/** A status-update event numbered `n` (in `metadata.n`) for `task`. */
export function testEvent(task: Task, n: number): StreamResponse {
  return { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } };
}

/** A commit request with defaults: owner `alice`, expected version 0, no events. */
export function commitOf(task: Task, expectedVersion = 0, events: StreamResponse[] = [], owner = 'alice'): CommitRequest {
  return { task, expectedVersion, owner, events };
}

