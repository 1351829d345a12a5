import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CompactionSchedule } from './file/compaction-schedule.js';
import { encodeFrame } from './file/frame.js';
import { acquireLock, type DirectoryLock } from './file/lock.js';
import { LogWriter } from './file/log-writer.js';
import { PendingWrites } from './file/pending-writes.js';
import { openLog } from './file/open-log.js';
import { DEFAULT_COMPACT_MIN_BYTES, type FileTaskStoreOptions, type FileTaskStoreStats } from './file/options.js';
import { commitPayload, deletePayload, headerPayload, LiveState, taskOfLive, type CommitInput } from './file/records.js';
import { SnapshotLags } from './snapshot-lag.js';
import { TaskListIndex } from './list-tasks.js';
import { RemovalListeners } from './removal-listeners.js';
import { positiveOption, resolveBounds, TaskBounds, type ResolvedBounds } from './task-bounds.js';
import { isTerminal, type Task } from '../schema/task.js';
import { DEFAULT_MAX_EVENTS_PER_TASK } from './memory-store.js';
import {
  OwnerMismatchError,
  StoreClosedError,
  VersionConflictError,
  type CommitRequest,
  type CommitResult,
  type StoredEvent,
  type TaskListPage,
  type TaskQuery,
  type TaskRecord,
  type TaskStore,
} from './task-store.js';

export { StoreLockedError } from './file/lock.js';
export type { StoreLogger } from './file/open-log.js';
export * from './file/options.js';

/** The log's file name inside the store directory (with `LOCK` beside it). */
export const FILE_STORE_LOG = 'tasks.log';

/** Past this size, a file with no valid first record is not a torn new task log: it is refused, not emptied. */
const MAX_TORN_HEADER_BYTES = 4096;

/**
 * A durable {@link TaskStore} in one directory (node only: import it from
 * `@taskwire/core/file`). Every commit is appended to a log of checksummed
 * records and resolves only once synced to disk; concurrent commits share one
 * write and one fsync (group commit). Reopening after a crash (even `kill -9`
 * mid-write) keeps every acknowledged commit and drops a torn tail. The log
 * is compacted in the background into a snapshot of the live tasks, so the
 * directory stays bounded (about `compactRatio` times the live data, at least
 * `compactMinBytes`). Live tasks are held in memory (events as JSON), so reads
 * never touch the disk. One process at a time: a second open of the directory
 * fails with {@link StoreLockedError}. Reads see acknowledged commits only.
 * `close` waits for queued commits and is idempotent.
 */
export class FileTaskStore implements TaskStore {
  private readonly index = new TaskListIndex();
  private readonly pending: PendingWrites;
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly compaction: CompactionSchedule;
  private readonly bounds: TaskBounds;
  private readonly removals = new RemovalListeners();
  private readonly lags: SnapshotLags;

  private constructor(
    /** The store's directory (absolute). */
    readonly directory: string,
    private readonly options: FileTaskStoreOptions,
    private readonly lock: DirectoryLock,
    private readonly state: LiveState,
    private readonly writer: LogWriter,
    limits: ResolvedBounds,
  ) {
    this.pending = new PendingWrites(state);
    this.lags = new SnapshotLags(options.snapshots, state.maxEvents);
    this.index.load([...state.tasks.values()].map((live) => ({ owner: live.owner, task: live.fields })));
    this.compaction = new CompactionSchedule(
      { dir: directory, logPath: join(directory, FILE_STORE_LOG), writer, state, fsync: options.fsync ?? true, aborted: () => this.closed },
      { minBytes: options.compactMinBytes ?? DEFAULT_COMPACT_MIN_BYTES, ratio: options.compactRatio ?? 2, logger: options.logger },
    );
    this.bounds = new TaskBounds(limits, () => state.tasks.size, (id) => this.evict(id));
    this.bounds.seed([...state.tasks.values()].map((live) => live.fields));
  }

  /**
   * Opens the store in `dir` (created if missing): takes its lock, replays
   * its log (truncating a torn tail) and is ready once the promise resolves.
   * Rejects with {@link StoreLockedError} when another live process, or
   * another store in this process, has the directory open.
   */
  static async open(dir: string, options: FileTaskStoreOptions = {}): Promise<FileTaskStore> {
    const directory = resolve(dir);
    const maxEvents = positiveOption(options.maxEventsPerTask, DEFAULT_MAX_EVENTS_PER_TASK, 'FileTaskStore', 'maxEventsPerTask');
    const limits = resolveBounds(options, Infinity, 'FileTaskStore');
    await mkdir(directory, { recursive: true });
    const lock = await acquireLock(directory, (previous) =>
      options.logger?.warn({ directory, previous }, 'Taskwire file store: took over a lock left by a process that is gone'),
    );
    try {
      const state = new LiveState(maxEvents);
      const logPath = join(directory, FILE_STORE_LOG);
      const fsync = options.fsync ?? true;
      const kind = { name: 'task log', apply: (payload: string) => state.applyPayload(payload), header: () => encodeFrame(headerPayload()), maxTornHeaderBytes: MAX_TORN_HEADER_BYTES };
      const { handle, size } = await openLog(directory, logPath, kind, fsync, options.logger);
      return new FileTaskStore(directory, options, lock, state, new LogWriter(handle, size, fsync, logPath), limits);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    this.check();
    const live = this.state.tasks.get(taskId);
    if (live === undefined) return undefined;
    const record = { task: taskOfLive(live), version: live.version, owner: live.owner, lastSequence: live.lastSequence };
    return live.trace === undefined ? record : { ...record, trace: live.trace };
  }

  async commit(request: CommitRequest): Promise<CommitResult> {
    this.checkWritable();
    const { task } = request;
    const view = this.pending.view(task.id);
    if (view.exists && view.owner !== request.owner) throw new OwnerMismatchError(task.id);
    if (view.version !== request.expectedVersion) throw new VersionConflictError(task.id, request.expectedVersion, view.version);
    const count = request.events.length;
    const events = request.events.map((event) => JSON.stringify(event));
    let chars = 0;
    for (const event of events) chars += event.length;
    // A chunk or a same-state status update logs its events alone while the task's JSON is recent enough,
    // or larger than what was logged since it (see SnapshotLags): a long stream's JSON is written again
    // only as often as its events add as much, so the n-th chunk costs what the first did.
    const append = request.appendOnly === true && view.exists && this.lags.mayAppend(task.id, view.version, count, chars);
    const json = append ? undefined : JSON.stringify(task);
    if (json === undefined) this.lags.appended(task.id, view.version + 1, count, chars);
    else this.lags.wrote(task.id, view.version + 1, isTerminal(task.status.state), json.length);
    const input: CommitInput = {
      id: task.id,
      owner: request.owner,
      version: view.version + 1,
      firstSequence: view.lastSequence + 1,
      task: json,
      events,
      fields: { id: task.id, contextId: task.contextId, status: { state: task.status.state, timestamp: task.status.timestamp } },
      trace: request.expectedVersion === 0 ? request.trace : undefined,
    };
    const lastSequence = view.lastSequence + input.events.length;
    const ticket = this.pending.hold(task.id, { exists: true, version: input.version, owner: input.owner, lastSequence });
    await this.writer.append(encodeFrame(commitPayload(input)), () => {
      this.state.applyCommit(input);
      this.index.set(input.owner, input.fields);
      this.pending.release(task.id, ticket);
      this.bounds.committed(task.id, isTerminal(task.status.state));
    });
    this.compaction.maybe();
    return { version: input.version, firstSequence: input.firstSequence, lastSequence };
  }

  async list(query: TaskQuery): Promise<TaskListPage> {
    this.check();
    return this.index.query(query, (id) => taskOfLive(this.state.tasks.get(id)!), (id) => this.state.tasks.get(id)!.lastSequence);
  }

  async delete(taskId: string): Promise<boolean> {
    this.checkWritable();
    if (!this.pending.view(taskId).exists) return false;
    const ticket = this.pending.hold(taskId);
    this.lags.forget(taskId);
    await this.writer.append(encodeFrame(deletePayload(taskId)), () => {
      this.state.applyDelete(taskId);
      this.index.delete(taskId);
      this.pending.release(taskId, ticket);
      this.bounds.forget(taskId);
      this.removals.emit(taskId);
    });
    this.compaction.maybe();
    return true;
  }

  async readEvents(taskId: string, afterSequence: number, limit = Infinity): Promise<StoredEvent[]> {
    this.check();
    const live = this.state.tasks.get(taskId);
    if (live === undefined || limit <= 0) return [];
    const first = live.lastSequence - live.events.length + 1;
    const start = Math.max(0, afterSequence + 1 - first);
    return live.events.slice(start, start + limit).map((json, i) => ({ sequence: first + start + i, event: JSON.parse(json) }));
  }

  onRemoved(listener: (taskId: string) => void): () => void {
    return this.removals.add(listener);
  }

  async unsettled(): Promise<string[]> {
    this.check();
    return this.index.unsettled();
  }

  /** Compacts the log now (waiting for a compaction under way first); rejects if it fails. */
  async compact(): Promise<void> {
    this.checkWritable();
    await this.compaction.now();
  }

  /**
   * Resolves once every commit queued before the call is durable and no
   * background compaction is running (for graceful shutdowns, tests and
   * benchmarks; commits never need it).
   */
  async idle(): Promise<void> {
    this.check();
    do {
      await this.writer.drain();
      await this.compaction.running;
    } while (this.compaction.running);
  }

  /** Counters: commits, batches and fsyncs (group commit), log and live sizes, compactions. */
  stats(): FileTaskStoreStats {
    const { appends, batches, fsyncs, bytes } = this.writer.stats;
    return {
      tasks: this.state.tasks.size,
      commits: appends,
      batches,
      fsyncs,
      appendedBytes: bytes,
      logBytes: this.writer.size,
      liveBytes: this.state.liveChars,
      compactions: this.compaction.completed,
    };
  }

  /** Waits for queued commits (abandoning a compaction under way), closes the log and releases the lock. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      await this.compaction.running;
      await this.writer.close();
      await this.lock.release();
    })();
    return this.closing;
  }

  private check(): void {
    if (this.closed) throw new StoreClosedError();
    this.bounds.sweep();
  }

  /**
   * Evicts a task at once (reads stop seeing it) and logs its deletion in
   * the background: eviction is never acknowledged to anyone, so a crash
   * before that record is durable only brings the task back to be evicted
   * again. A task with a commit under way is left alone.
   */
  private evict(taskId: string): void {
    if (this.pending.has(taskId) || this.writer.failed) return;
    this.state.applyDelete(taskId);
    this.index.delete(taskId);
    this.writer.append(encodeFrame(deletePayload(taskId)), () => undefined).catch(() => undefined);
    this.removals.emit(taskId);
  }

  private checkWritable(): void {
    this.check();
    if (this.writer.failed) throw this.writer.failed;
  }
}
