import { isTerminal, SnapshotLags, timestampSortKey, type CommitRequest, type CommitResult, type SnapshotOptions } from '@taskwire/core';
import type pg from 'pg';
import type { CommitNotifier } from './cluster/notifier.js';
import { CommitBatcher } from './commit-batch.js';
import { storable } from './database-errors.js';
import { batchStatement, batchValues, type BatchedUpdate } from './task-batch-sql.js';
import { clusterParameters, type TaskStatements } from './task-sql.js';

/** What {@link TaskCommits} uses of its store. */
export interface CommitStore {
  query<R extends object>(text: string, values: unknown[], during: string, outcomeUnknown?: boolean): Promise<pg.QueryResult<R>>;
  /** Why a commit changed nothing, read after the fact. */
  refusal(request: CommitRequest): Promise<Error>;
  /** The store's statements now (they change once replicas share the tables). */
  statements(): TaskStatements;
  /** Set once replicas share the tables: announces each stored update. */
  notifier(): CommitNotifier | undefined;
  /** True once the schema's `snapshot-logs` contract step is recorded: no connected release reads only the task JSON. */
  snapshotLogs(): boolean;
}

/** A commit waiting in a batch: the request, and its values (validated, events as JSON). */
interface Batched {
  readonly request: CommitRequest;
  readonly update: BatchedUpdate;
}

/**
 * How the PostgreSQL task store writes commits: a create as one statement;
 * the updates of a process in batches (one statement per event-loop turn,
 * see {@link CommitBatcher}; a replica's rows each keep their own lease
 * condition, so a lost lease refuses only its own commit); and, for a
 * commit that only appends, the events without the task's JSON while its
 * snapshot is recent enough, or the events logged since are less JSON than
 * it (see core's `SnapshotLags.mayAppend`, told the sizes).
 */
export class TaskCommits {
  private readonly lags: SnapshotLags;
  private readonly batcher: CommitBatcher<Batched, CommitResult> | undefined;
  /** The batch statement alone, and the one of replicas sharing the tables (keeping each row's lease). */
  private readonly batchSql: { readonly alone: string; readonly leased: string };

  constructor(
    private readonly store: CommitStore,
    schema: string,
    private readonly maxEvents: number | undefined,
    options: { readonly snapshots?: SnapshotOptions | undefined; readonly batchCommits?: boolean | undefined },
  ) {
    this.lags = new SnapshotLags(options.snapshots, maxEvents);
    this.batchSql = { alone: batchStatement(schema, maxEvents !== undefined), leased: batchStatement(schema, maxEvents !== undefined, true) };
    if (options.batchCommits !== false) this.batcher = new CommitBatcher((commits) => this.commitBatch(commits));
  }

  /** Forgets what is known of `taskId`'s snapshot (it was deleted). */
  forget(taskId: string): void {
    this.lags.forget(taskId);
  }

  /** Stores `request` (see {@link PostgresTaskStore.commit}). */
  async commit(request: CommitRequest): Promise<CommitResult> {
    const update = prepared(request);
    // Updates go in batches (a replica's each with its own lease condition); creates are single statements.
    if (this.batcher !== undefined && request.expectedVersion !== 0) return this.batcher.add(update.id, { request, update });
    return this.commitOne(request, update);
  }

  /** Stores update `request` with its events from `firstSequence` on, the task written whole (see {@link PostgresTaskStore.commitFrom}). */
  async commitFrom(request: CommitRequest, firstSequence: number): Promise<CommitResult> {
    if (request.expectedVersion === 0 || !Number.isSafeInteger(firstSequence) || firstSequence < 1) {
      throw new TypeError(`commitFrom updates a stored task from a positive sequence (expectedVersion ${request.expectedVersion}, firstSequence ${firstSequence})`);
    }
    return this.commitOne(request, { ...prepared(request), task: JSON.stringify(request.task) }, firstSequence);
  }

  /**
   * `update` with the task JSON, unless the commit may only append (see
   * `SnapshotLags`): never before the `snapshot-logs` contract step, while a
   * release that reads only the JSON may share the tables.
   */
  private withTask(request: CommitRequest, update: BatchedUpdate): BatchedUpdate {
    const append =
      request.expectedVersion !== 0 &&
      request.appendOnly === true &&
      this.store.snapshotLogs() &&
      this.lags.mayAppend(update.id, request.expectedVersion, update.events.length, charsOf(update.events));
    return append ? update : { ...update, task: JSON.stringify(request.task) };
  }

  /** Stores one commit in one statement (with `firstSequence`, an update whose events are numbered from it: `prepared` has the task JSON). */
  private async commitOne(request: CommitRequest, prepared: BatchedUpdate, firstSequence?: number): Promise<CommitResult> {
    const update = firstSequence === undefined ? this.withTask(request, prepared) : prepared;
    const creating = request.expectedVersion === 0;
    const values: unknown[] = [update.id, update.owner, update.contextId, update.state, update.statusKey, update.task, update.events];
    values.push(creating ? (request.trace === undefined ? null : storable(request.trace, 'traceparent')) : request.expectedVersion);
    if (this.maxEvents !== undefined) values.push(this.maxEvents);
    if (this.store.notifier() !== undefined) values.push(...clusterParameters(request.lease));
    if (firstSequence !== undefined) values.push(firstSequence);
    let rows: { version: number; last_sequence: string; lease_epoch?: number | null }[];
    try {
      const sql = this.store.statements();
      const text = creating ? sql.create : firstSequence !== undefined ? sql.updateFrom : update.task === null ? sql.append : sql.update;
      ({ rows } = await this.store.query<{ version: number; last_sequence: string; lease_epoch?: number | null }>(text, values, 'storing a task', true));
    } catch (error) {
      this.lags.forget(update.id);
      throw error;
    }
    const row = rows[0];
    if (row === undefined) return Promise.reject(await this.refused(request));
    return this.claimed(request, this.stored(request, update, row.version, Number(row.last_sequence)), row.lease_epoch);
  }

  /** A claim's result carries its epoch, drawn from the schema's sequence (see task-sql.ts), not the version. */
  private claimed(request: CommitRequest, stored: CommitResult, epoch: number | null | undefined): CommitResult {
    return request.lease?.kind === 'claim' && typeof epoch === 'number' ? { ...stored, leaseEpoch: epoch } : stored;
  }

  /** Stores a batch of updates of distinct tasks in one statement (one alone as {@link commitOne} does). */
  private async commitBatch(commits: readonly Batched[]): Promise<(CommitResult | { readonly failed: unknown })[]> {
    if (commits.length === 1) {
      const [{ request, update }] = commits as [Batched];
      return [await this.commitOne(request, update).catch((error: unknown) => ({ failed: error }))];
    }
    const updates = commits.map(({ request, update }) => this.withTask(request, update));
    const leased = this.store.notifier() !== undefined;
    let rows: { i: string; version: number; last_sequence: string; lease_epoch?: number | null }[];
    try {
      const text = leased ? this.batchSql.leased : this.batchSql.alone;
      ({ rows } = await this.store.query<{ i: string; version: number; last_sequence: string; lease_epoch?: number | null }>(text, batchValues(updates, this.maxEvents, leased), 'storing tasks', true));
    } catch (error) {
      for (const update of updates) this.lags.forget(update.id);
      throw error;
    }
    const stored = new Map(rows.map((row) => [Number(row.i) - 1, row]));
    return Promise.all(
      commits.map(async ({ request }, i) => {
        const row = stored.get(i);
        if (row === undefined) return { failed: await this.refused(request) };
        return this.claimed(request, this.stored(request, updates[i]!, row.version, Number(row.last_sequence)), row.lease_epoch);
      }),
    );
  }

  /** Bookkeeping of a stored commit: the snapshot lag, the announcement to other replicas; its result. */
  private stored(request: CommitRequest, update: BatchedUpdate, version: number, lastSequence: number): CommitResult {
    if (update.task === null) this.lags.appended(update.id, version, update.events.length, charsOf(update.events));
    else this.lags.wrote(update.id, version, isTerminal(request.task.status.state), update.task.length);
    // A task's first commit wakes nobody: no one can have followed an id that did not exist (a blocking echo announces nothing).
    if (request.expectedVersion !== 0) this.store.notifier()?.announce(update.id, lastSequence);
    return { version, firstSequence: lastSequence - update.events.length + 1, lastSequence };
  }

  /** Why a commit changed nothing (see {@link refusal}); the task's snapshot lag is unknown from now on. */
  private async refused(request: CommitRequest): Promise<Error> {
    this.lags.forget(request.task.id);
    return this.store.refusal(request);
  }
}

/** The characters of JSON of a commit's events. */
function charsOf(events: readonly string[]): number {
  let chars = 0;
  for (const event of events) chars += event.length;
  return chars;
}

/** `request`'s values as a batched update (validated, events as JSON), without the task JSON. */
function prepared(request: CommitRequest): BatchedUpdate {
  const { task } = request;
  return {
    id: storable(task.id, 'task id'),
    owner: storable(request.owner, 'tenant'),
    contextId: storable(task.contextId, 'contextId'),
    state: task.status.state,
    statusKey: timestampSortKey(task.status.timestamp),
    task: null,
    events: request.events.map((event) => JSON.stringify(event)),
    expectedVersion: request.expectedVersion,
    lease: request.lease,
  };
}
