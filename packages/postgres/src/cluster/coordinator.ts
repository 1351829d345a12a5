import type { CoordinatorHost, Logger, TaskCoordinator } from '@taskwire/core';
import type pg from 'pg';
import { randomBytes } from 'node:crypto';
import { nameConnections, sessionConfig } from '../connection.js';
import { prepared, quoteSchema } from '../schema-name.js';
import type { PostgresTaskStore } from '../task-store.js';
import { backgroundPool, PoolConnections } from './background-pool.js';
import { BackgroundJobs } from './background-jobs.js';
import { clusterStatements, type ClusterStatements } from './cluster-sql.js';
import { LEASE_HEARTBEATS_STEP } from './heartbeat-migration.js';
import { LeaseKeeper } from './lease-keeper.js';
import { ReplicaName } from './replica-name.js';
import { CommitListener } from './listener.js';
import { eventsChannel, replicaLockName, sessionName } from './names.js';
import { DEFAULT_CATCH_UP_INTERVAL_MS, DEFAULT_LEASE_TTL_MS, DEFAULT_PING_INTERVAL_MS, DEFAULT_PING_TIMEOUT_MS, type PostgresCoordinatorOptions } from './coordinator-options.js';
import { timerInterval } from '../timer-interval.js';
import { AbortRequests } from './abort-requests.js';
import { CommitWatchers } from './commit-watchers.js';

export { DEFAULT_CATCH_UP_INTERVAL_MS, DEFAULT_LEASE_TTL_MS, DEFAULT_PING_INTERVAL_MS, DEFAULT_PING_TIMEOUT_MS } from './coordinator-options.js';
export type { PostgresCoordinatorOptions } from './coordinator-options.js';

/** Tasks taken over per statement. */
const TAKE_OVER_BATCH = 100;
/** Ids per catch-up statement. */
const CATCH_UP_BATCH = 1_000;
/** A row taken over by a sweep. */
type TakenOver = { readonly id: string; readonly lease_epoch: number; readonly lease_takeovers: number };
/** The longest wait between two tries of a failing sweep or catch-up. */
const MAX_BACKOFF_MS = 5_000;

/**
 * The {@link TaskCoordinator} of replicas sharing one PostgreSQL schema
 * (see the package README, "Running several replicas" and "Operating a
 * cluster"):
 * - wake-ups: one LISTEN connection per replica hears every commit of the
 *   schema; those of watched tasks are coalesced per event-loop turn; every
 *   watched task is also re-read every `catchUpIntervalMs` and after a
 *   reconnection;
 * - leases: renewed by one statement per renewal interval (a third of the
 *   lease) for every run this replica holds: the replica's heartbeat row
 *   (and, before the `lease-heartbeats` contract step, each task row); a
 *   lease found lost, or not renewed for nearly its whole time, stops its
 *   run;
 * - sweep: about every fifth of the lease (between 0.2 and 1 s), the
 *   submitted or working tasks whose lease expired are taken over (one
 *   replica wins each) and handed to the service to settle; so are this
 *   replica's own rows that no run here holds once their row's expiry
 *   passed (a run given up here, a claim whose answer was lost, a failed
 *   settling commit), whatever else it runs: every task whose run is gone
 *   settles within two leases.
 * - abort requests: a cancel with a grace made here for a task another
 *   live replica runs asks that replica, on the same channel, to abort its
 *   run with the grace (`requestAbort`; see `AbortRequests`);
 * - names: with `replicaName`, the LISTEN connection holds an advisory
 *   lock on the name, the proof a start-up needs before it takes the
 *   unexpired leases of the name's earlier processes.
 * Renewals, the sweep and the catch-up use a small pool of their own, so
 * request traffic never delays them; no error of theirs escapes.
 */
export class PostgresCoordinator implements TaskCoordinator {
  readonly shared = true;
  readonly processId: string;
  /** The replica's name, if it has one. */
  private readonly replica: ReplicaName | undefined;
  readonly leaseTtlMs: number;
  readonly rerunOrphans: number;
  private readonly sql: ClusterStatements;
  private readonly watchers: CommitWatchers;
  private readonly leases: LeaseKeeper;
  private readonly jobs: BackgroundJobs;
  private host: CoordinatorHost | undefined;
  private draining = false;
  private closing: Promise<void> | undefined;
  private readonly listener: CommitListener;
  private readonly background: { pool: pg.Pool; connections: PoolConnections };
  private readonly storeConnections: PoolConnections;
  private readonly aborts: AbortRequests;

  private constructor(
    private readonly store: PostgresTaskStore,
    private readonly options: PostgresCoordinatorOptions,
    private readonly logger: Logger | undefined,
  ) {
    const name = options.replicaName;
    if (name !== undefined) ReplicaName.check(name);
    const tag = randomBytes(8).toString('hex');
    this.processId = name === undefined ? tag : `${name}#${tag}`;
    this.replica = name === undefined ? undefined : new ReplicaName(name, this.processId, logger);
    this.leaseTtlMs = timerInterval(options.leaseTtlMs, DEFAULT_LEASE_TTL_MS, 'leaseTtlMs');
    this.rerunOrphans = options.rerunOrphans ?? 0;
    if (!Number.isInteger(this.rerunOrphans) || this.rerunOrphans < 0) throw new RangeError(`rerunOrphans must be a whole number, 0 or more (got ${this.rerunOrphans})`);
    const pingIntervalMs = timerInterval(options.pingIntervalMs, DEFAULT_PING_INTERVAL_MS, 'pingIntervalMs');
    const pingTimeoutMs = timerInterval(options.pingTimeoutMs, DEFAULT_PING_TIMEOUT_MS, 'pingTimeoutMs');
    this.sql = clusterStatements(quoteSchema(store.schema));
    this.leases = new LeaseKeeper(this.processId, this.leaseTtlMs, logger);
    this.jobs = new BackgroundJobs(logger);
    this.watchers = new CommitWatchers(logger);
    // A renewal must give up well before the lease would expire, so the next one can try on a fresh connection.
    this.background = backgroundPool(store.pool, sessionName('cluster', tag, name), Math.max(1_000, this.leaseTtlMs / 3), logger);
    this.storeConnections = new PoolConnections(store.pool);
    // The request pool carries the replica's id too (when the store opened it).
    nameConnections(store.pool, `taskwire ${tag}${name === undefined ? '' : ` ${name}`}`);
    const channel = eventsChannel(store.schema);
    this.aborts = new AbortRequests(store.pool, quoteSchema(store.schema), channel, this.processId, logger);
    this.listener = new CommitListener({
      // LISTEN and the name's advisory lock need a session: the direct URL when the store goes through a pooler.
      client: sessionConfig(store.pool),
      name: sessionName('listener', tag, name),
      channel,
      pingIntervalMs,
      pingTimeoutMs,
      onCommit: (taskId, lastSequence) => this.watchers.announce(taskId, lastSequence),
      onAbortRequest: (taskId, graceMs) => this.aborts.heard(this.host, taskId, graceMs),
      onConnected: () => {
        // Notifications may have been missed, and the replica re-asserts its leases at once.
        this.jobs.trigger('catch-up');
        this.jobs.trigger('renewal');
      },
      lock: name === undefined ? undefined : { name: replicaLockName(store.schema, name), onLock: (granted, first) => this.replica?.onLock(granted, first) },
      onSilent: () => {
        // Statements in flight on a silent path would wait for their read timeout: they fail now, retryably (a run's commit is retried).
        const replaced = this.background.connections.destroy(true) + this.storeConnections.destroy(true);
        this.logger?.warn({ replaced }, 'Taskwire postgres: the database stopped answering on the LISTEN connection; every connection to it is replaced');
      },
      logger,
    });
  }

  /** Opens the coordinator: its LISTEN connection and its background work (see {@link createPostgresCoordinator}). */
  static async open(options: PostgresCoordinatorOptions): Promise<PostgresCoordinator> {
    const catchUp = timerInterval(options.catchUpIntervalMs, DEFAULT_CATCH_UP_INTERVAL_MS, 'catchUpIntervalMs');
    options.store.shareCommits(options.logger);
    const coordinator = new PostgresCoordinator(options.store, options, options.logger);
    try {
      await coordinator.listener.start();
    } catch (error) {
      await coordinator.background.pool.end().catch(() => undefined);
      throw error;
    }
    const { jobs, leaseTtlMs } = coordinator;
    jobs.every('catch-up', catchUp, () => coordinator.catchUp(), MAX_BACKOFF_MS);
    jobs.every('renewal', leaseTtlMs / 3, () => coordinator.renew(), leaseTtlMs / 6);
    // Not a database call: a replica that could not renew stops its runs on time, whatever its connections do.
    jobs.every('lease check', Math.min(1_000, leaseTtlMs / 10), async () => void coordinator.leases.giveUpStale());
    return coordinator;
  }

  watch(taskId: string, onCommit: (lastSequence: number) => void): () => void {
    return this.watchers.watch(taskId, onCommit);
  }

  hold(taskId: string, epoch: number, onLost: () => void): () => void {
    return this.leases.hold(taskId, epoch, onLost);
  }

  attach(host: CoordinatorHost): void {
    if (this.host !== undefined) throw new Error('PostgresCoordinator.attach: a coordinator serves one service');
    this.host = host;
    this.jobs.every('sweep', Math.min(1_000, Math.max(200, this.leaseTtlMs / 5)), () => this.sweep(false).then(() => undefined), MAX_BACKOFF_MS);
  }

  /** Asks the live replica holding `taskId`'s lease to abort its run with a grace (one statement; see `AbortRequests`). */
  requestAbort(taskId: string, graceMs: number): Promise<boolean> {
    return this.aborts.request(taskId, graceMs);
  }

  recover(): Promise<string[]> {
    return this.sweep(true);
  }

  drain(): void {
    this.draining = true;
  }

  /** Stops wake-ups, renewals and the sweep, hands this replica's remaining leases over, and ends its own connections (the store's pool stays open). Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // A renewal in flight lands before the heartbeat is deleted, never after it.
      await this.jobs.stop();
      await this.background.pool.query(prepared(this.sql.expireOwn, [this.processId])).catch(() => undefined);
      await this.listener.close();
      await this.background.pool.end().catch(() => undefined);
      this.watchers.clear();
      this.leases.clear();
    })();
    return this.closing;
  }

  /**
   * Runs one statement of this replica's background work on the
   * coordinator's own connections, never behind request traffic (a push
   * store given this coordinator renews its delivery claims here). Its
   * statements give up after a third of the lease.
   */
  backgroundQuery<R extends object>(text: string, values: readonly unknown[]): Promise<pg.QueryResult<R>> {
    return this.background.pool.query<R>(prepared(text, [...values]));
  }

  /** How many times the LISTEN connection was lost and replaced (for tests and metrics). */
  get reconnections(): number {
    return this.listener.losses;
  }

  /** Whether this process holds its replica name's lock (see `replicaName`); undefined without a name. */
  get holdsName(): boolean | undefined {
    return this.replica === undefined ? undefined : this.listener.holdsLock;
  }

  /**
   * Renews this replica's leases: its heartbeat, and every task row it
   * holds until the `lease-heartbeats` contract step is recorded (a release
   * without heartbeats may share the tables until then, and it reads only
   * the rows).
   */
  private renew(): Promise<void> {
    const rowsToo = !this.store.hasContractStep(LEASE_HEARTBEATS_STEP);
    return this.leases.renew(this.background.pool, rowsToo ? this.sql.renew : this.sql.beat);
  }

  /** Reads the last sequence of every watched task and announces it (lost notifications only delay). */
  private async catchUp(): Promise<void> {
    const ids = this.watchers.ids();
    for (let at = 0; at < ids.length && !this.closing; at += CATCH_UP_BATCH) {
      const { rows } = await this.background.pool.query<{ id: string; last_sequence: string }>(
        prepared(this.sql.lastSequences, [ids.slice(at, at + CATCH_UP_BATCH)]),
      );
      for (const row of rows) this.watchers.announce(row.id, Number(row.last_sequence));
    }
  }

  /**
   * Takes over the tasks whose lease expired (at start-up also those of
   * this replica's earlier processes when they are provably gone, see
   * `replicaName`) and hands each to
   * the service; resolves their ids. A draining replica takes nothing.
   */
  private async sweep(startup: boolean): Promise<string[]> {
    const host = this.host;
    if (host === undefined) throw new Error('PostgresCoordinator: attach a service before recovering tasks');
    const settled: string[] = [];
    while (!this.draining && !this.closing) {
      const { rows } = await this.background.pool.query<TakenOver>(
        prepared(this.sql.takeOver, [this.processId, this.leaseTtlMs, startup, TAKE_OVER_BATCH, this.leases.ids(), startup && this.listener.holdsLock ? this.replica?.predecessors ?? null : null]),
      );
      await this.settle(host, rows, settled);
      if (rows.length < TAKE_OVER_BATCH) break;
    }
    // Its own rows that no run here holds: a busy replica's heartbeat keeps them from everyone else.
    while (!startup && !this.draining && !this.closing) {
      const { rows } = await this.background.pool.query<TakenOver>(prepared(this.sql.takeOverOwn, [this.processId, this.leaseTtlMs, this.leases.ids(), TAKE_OVER_BATCH]));
      await this.settle(host, rows, settled);
      if (rows.length < TAKE_OVER_BATCH) break;
    }
    return settled;
  }

  /** Hands the tasks just taken over to the service to settle (ids into `settled`); a failure is logged and the row's expiry made to pass now, fenced by the epoch, so the next self-sweep takes it anew. */
  private async settle(host: CoordinatorHost, rows: readonly TakenOver[], settled: string[]): Promise<void> {
    await Promise.all(
      rows.map(({ id, lease_epoch, lease_takeovers }) =>
        host.settleOrphan(id, lease_epoch, lease_takeovers).then(
          () => void settled.push(id),
          async (error: unknown) => {
            this.logger?.warn({ taskId: id, error: String(error) }, 'Taskwire postgres: could not settle a task whose run stopped; a later sweep tries again');
            await this.background.pool.query(prepared(this.sql.expireTaken, [id, this.processId, lease_epoch])).catch(() => undefined);
          },
        ),
      ),
    );
  }
}

/**
 * Opens the {@link PostgresCoordinator} of one replica, on the tables of its
 * task `store` (from then on the store's commits keep leases and announce
 * themselves). Give both to the replica's `TaskService` (`store`,
 * `coordinator`); every process so configured on one schema forms one
 * cluster. It opens connections of its own besides the store's pool (one
 * LISTEN connection, and at most two for renewals, the sweep and the
 * catch-up); `close` ends them. Close the coordinator after the service
 * and before the store.
 */
export function createPostgresCoordinator(options: PostgresCoordinatorOptions): Promise<PostgresCoordinator> {
  return PostgresCoordinator.open(options);
}
