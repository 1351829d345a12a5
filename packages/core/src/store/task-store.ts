import type { ListTasksResponse, StreamResponse, Task, TaskState } from '../schema/index.js';
import type { LeaseCondition } from './lease-condition.js';

/**
 * A stored task with the bookkeeping the service needs. `version` starts at
 * 1 when the task is created and grows by one with every commit;
 * `lastSequence` is the sequence number of the newest event in the task's
 * log (0 when the log is empty).
 */
export interface TaskRecord {
  readonly task: Task;
  readonly version: number;
  /** The scope the task belongs to (tenant and principal); `''` when anonymous. */
  readonly owner: string;
  readonly lastSequence: number;
  /**
   * The W3C `traceparent` of the request that created the task, when that
   * request was traced (see {@link CommitRequest.trace}): agent runs,
   * cancels and recoveries in any process link back to it.
   */
  readonly trace?: string | undefined;
}

/**
 * A stored task without its content (see {@link TaskStore.head}): what a
 * record says beside the task, with the task's state. Reading it costs the
 * same however long the task grew.
 */
export interface TaskHead {
  readonly taskId: string;
  readonly version: number;
  /** The scope the task belongs to (as {@link TaskRecord.owner}). */
  readonly owner: string;
  readonly lastSequence: number;
  /** The task's `status.state`, as the record of the same version shows it. */
  readonly state: TaskState;
}

/** One event of a task's log, numbered from 1 in the order it was committed. */
export interface StoredEvent {
  readonly sequence: number;
  readonly event: StreamResponse;
}

/** What {@link TaskStore.commit} writes atomically: the new task state and its events. */
export interface CommitRequest {
  /** The task as it is after the events. */
  readonly task: Task;
  /** The version the writer read; `0` creates the task (and fails if it exists). */
  readonly expectedVersion: number;
  /** The task's scope; on an update it must equal the stored owner. */
  readonly owner: string;
  /** Events appended to the task's log, in order, with the same commit. May be empty. */
  readonly events: readonly StreamResponse[];
  /**
   * Trace context to keep with the task: the W3C `traceparent` (at most 55
   * characters of `[0-9a-f-]`) of the request that created it. Given on the
   * creating commit (`expectedVersion` 0); later commits leave it out and
   * must not change it. A store that keeps it returns it as
   * {@link TaskRecord.trace} from every read; a store that does not simply
   * leaves it out (traces then do not link across processes).
   */
  readonly trace?: string | undefined;
  /**
   * When several processes share the store: the lease the commit claims or
   * must still hold (see {@link LeaseCondition}; a lost lease rejects with
   * `LeaseLostError`). Stores that serve one process ignore it.
   */
  readonly lease?: LeaseCondition | undefined;
  /**
   * True when the commit only appends: `expectedVersion` is not 0, every
   * event is a `statusUpdate` or an `artifactUpdate`, none changes the
   * task's state, and `task` is exactly what {@link replayEvents} (the
   * lifecycle reducer) makes of the stored task and `events`. A store may
   * then log the events alone and compute the task on reads from its last
   * stored snapshot and the events after it (so a stream's n-th chunk costs
   * what its first did); reads must return the same task either way. A
   * store may ignore it and store `task` as usual. The service sets it.
   */
  readonly appendOnly?: boolean | undefined;
}

/** What a commit produced. With no events, `firstSequence` is `lastSequence + 1`. */
export interface CommitResult {
  readonly version: number;
  /** Sequence number of the first appended event. */
  readonly firstSequence: number;
  /** Sequence number of the last event in the log after this commit. */
  readonly lastSequence: number;
  /**
   * The epoch of the lease a commit with a `claim` condition took, when the
   * store draws epochs apart from versions (so they never repeat for a task
   * id, even one deleted and created again). Left out, the epoch is
   * `version`.
   */
  readonly leaseEpoch?: number | undefined;
}

/**
 * What {@link TaskStore.list} answers: the ListTasks response, and each
 * listed task's generation (its {@link TaskRecord.lastSequence}, what
 * `get` would read for it in the same state), in the order of `tasks`. A
 * store that leaves `generations` out gives A2A 1.1's ListTasks answers
 * without them (every store of this SDK gives them, and the conformance
 * suite checks them).
 */
export interface TaskListPage extends ListTasksResponse {
  readonly generations?: readonly number[];
}

/** A ListTasks query as a store answers it, always within one owner. */
export interface TaskQuery {
  readonly owner: string;
  readonly contextId?: string | undefined;
  readonly status?: TaskState | undefined;
  /** ISO 8601: only tasks whose status timestamp is at or after this (the proto's "greater than or equal"). */
  readonly statusTimestampAfter?: string | undefined;
  /** 1 to 100; default 50. */
  readonly pageSize?: number | undefined;
  /** An opaque cursor from a previous page's `nextPageToken`. */
  readonly pageToken?: string | undefined;
  /** Unset: the whole history; 0: none (field omitted); n: the last n messages. */
  readonly historyLength?: number | undefined;
  /** When not true, `artifacts` is omitted from every task. */
  readonly includeArtifacts?: boolean | undefined;
}

/**
 * Where tasks live. Every adapter passes the store conformance suite
 * (`runTaskStoreConformance` from `@taskwire/core/testing`).
 *
 * Contract:
 * - `commit` is atomic: the task and its events are both stored or neither;
 *   it resolves only once durable for the adapter (a file store: on disk).
 * - `commit` fails with {@link VersionConflictError} when the stored version
 *   is not `expectedVersion` (or the task exists and `expectedVersion` is 0),
 *   and with {@link OwnerMismatchError} when `owner` differs from the stored one.
 *   A store may also refuse (with a VersionConflictError) any commit to a
 *   task whose stored state is terminal: a finished task never changes (the
 *   service never asks for that; the lifecycle reducer refuses it first).
 * - `list` follows the A2A ListTasks rules: filters, status-timestamp
 *   descending order (ties by task id descending), cursor pagination stable
 *   under concurrent inserts, `totalSize` counting every match, an
 *   `InvalidParams` A2AError for a malformed `pageToken`.
 * - `readEvents` returns the events with sequence > `afterSequence`, in order,
 *   at most `limit` of them. A store may keep only each task's newest events
 *   (a retention bound): a read from before the oldest kept event then starts
 *   at that event, and the gap in the sequence numbers tells the reader.
 *   A store with {@link TaskStore.commitFrom} may also have a gap inside the
 *   log (events a failover lost, then the task settled after them).
 * - Callers cannot change stored state through objects they passed to
 *   `commit` or received from a read: returned values are immutable, either
 *   deep-frozen (a mutation throws a TypeError in strict code; the memory
 *   store freezes what `commit` is given, in place, and shares it) or copies.
 *   Do not mutate what a store returns, nor what you gave it.
 * - A {@link CommitRequest.trace} given when a task is created is kept for
 *   the task's life and returned as {@link TaskRecord.trace} (a store that
 *   cannot keep it may drop it; it is telemetry, not state).
 * - After `close`, every call rejects with {@link StoreClosedError}.
 */
export interface TaskStore {
  get(taskId: string): Promise<TaskRecord | undefined>;
  commit(request: CommitRequest): Promise<CommitResult>;
  list(query: TaskQuery): Promise<TaskListPage>;
  /** Removes a task and its events. Resolves true when it existed. */
  delete(taskId: string): Promise<boolean>;
  readEvents(taskId: string, afterSequence: number, limit?: number): Promise<StoredEvent[]>;
  /**
   * Optional: the task's {@link TaskHead} (version, owner, last sequence and
   * state, all of one committed version, as `get` would answer them), or
   * undefined when there is no such task; without reading the task itself.
   * A resumed SubscribeToTask reads it instead of the whole record when it
   * only replays events, so a resume costs what it sends, not the task's
   * size. Stores whose `get` costs little whatever the task's size may
   * leave it out (the service then reads the record).
   */
  head?(taskId: string): Promise<TaskHead | undefined>;
  /**
   * Optional: the ids of every task, of every owner, that is submitted or
   * working (neither terminal nor interrupted). A restarted service reads it
   * to settle the tasks a stopped process left running (`TaskService.recover`).
   */
  unsettled?(): Promise<string[]>;
  /**
   * Optional: from now on, calls `listener` with the id of every task the
   * store removes: by `delete`, or evicted past its bounds (a store closing
   * removes nothing). Returns a function that stops the calls. A listener
   * runs synchronously inside the store's bookkeeping: it must not throw,
   * and should only start work of its own (the service deletes the task's
   * push configs this way).
   */
  onRemoved?(listener: (taskId: string) => void): () => void;
  /**
   * Optional: resolves once the store can serve (its database answers);
   * rejects otherwise. Readiness checks (`/readyz`) call it; without it they
   * read a task id that does not exist.
   */
  ping?(): Promise<void>;
  /**
   * Optional, for a store whose database can fail over and lose its last
   * commits (asynchronous replication): commits `request` as `commit` does,
   * but numbers its first event `firstSequence`, at least the stored
   * `lastSequence + 1`; the numbers in between stay unused, a gap in the log (readers skip it as they skip events retention dropped). The
   * service uses it for one thing: a process that committed (and published)
   * events the store no longer has settles the task after them, so no
   * sequence number a client saw is handed out again with other content.
   * The task is written whole (`appendOnly` is ignored); the commit is
   * refused as `commit` refuses one, and with a {@link VersionConflictError}
   * when the stored `lastSequence` is not below `firstSequence`. An update
   * only (`expectedVersion` above 0).
   */
  commitFrom?(request: CommitRequest, firstSequence: number): Promise<CommitResult>;
  close(): Promise<void>;
}

/** A commit lost a race: someone else changed the task since it was read. Re-read and retry. */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly taskId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      `Task ${taskId} is at version ${actualVersion}, not ${expectedVersion}: it changed since it was read; read it again and retry`,
    );
  }
}

/** A commit named an owner other than the task's. */
export class OwnerMismatchError extends Error {
  override readonly name = 'OwnerMismatchError';
  constructor(readonly taskId: string) {
    super(`Task ${taskId} belongs to another owner; a commit cannot move it`);
  }
}

/** The store was closed; open a new one. */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('The task store is closed');
  }
}
