import type { CoordinatorHost, Logger, TaskCoordinator } from '@taskwire/core';
import type pg from 'pg';
import { prepared, quoteSchema } from '../schema-name.js';
import type { PostgresTaskStore } from '../task-store.js';
import { clusterStatements, type ClusterStatements } from './cluster-sql.js';
import { CommitListener } from './listener.js';
import { eventsChannel, livenessClass, randomProcessKey } from './names.js';

/** Default of {@link PostgresCoordinatorOptions.leaseTtlMs}: 15 s. */
export const DEFAULT_LEASE_TTL_MS = 15_000;
/** Default of {@link PostgresCoordinatorOptions.catchUpIntervalMs}: 1 s. */
export const DEFAULT_CATCH_UP_INTERVAL_MS = 1_000;
/** How long this replica's own LISTEN connection must have been up before a vanished liveness lock counts as a dead replica. */
const LIVENESS_GRACE_MS = 3_000;
/** Tasks taken over per statement. */
const TAKE_OVER_BATCH = 100;
/** Ids per catch-up statement. */
const CATCH_UP_BATCH = 1_000;

/** Options of {@link createPostgresCoordinator}: the replica's task store, and the cluster's timing. */
export interface PostgresCoordinatorOptions {
  /** The task store of this replica: the coordinator uses its pool and schema, and makes its commits announce themselves. */
  readonly store: PostgresTaskStore;
  /**
   * How long a task's lease lasts without renewal (default 15 s). It bounds
   * how long a task stays unsettled after its replica stops in a way the
   * database cannot see (a network cut, a frozen process): another replica
   * settles it within this time plus one sweep. A replica killed outright
   * (its database session ends) is noticed at the next sweep.
   */
  readonly leaseTtlMs?: number;
  /** How often watched tasks are re-read, so a lost notification only delays (default 1 s). */
  readonly catchUpIntervalMs?: number;
  /**
   * How many times a task whose replica stopped is run again on another
   * (its agent called anew with the task's last user message) before it
   * fails instead. Default 0: never, since a re-run may repeat what the
   * agent already did.
   */
  readonly rerunOrphans?: number;
  /** Told about lost connections, lost leases and failed sweeps. */
  readonly logger?: Logger;
}

/** Where the coordinator's statements go. */
interface Tables {
  readonly pool: pg.Pool;
  readonly schema: string;
  readonly qualified: string;
}

function interval(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value >= 10) || !Number.isFinite(value)) throw new RangeError(`${name} must be a finite number of milliseconds, at least 10 (got ${value})`);
  return value;
}

/**
 * The {@link TaskCoordinator} of replicas sharing one PostgreSQL schema
 * (see the package README, "Running several replicas"):
 * - wake-ups: one LISTEN connection per replica hears every commit of the
 *   schema (the store's commit statement notifies `"<sequence> <task id>"`);
 *   those of watched tasks are coalesced per event-loop turn; every watched
 *   task is also re-read every `catchUpIntervalMs` and after a reconnection;
 * - leases: renewed by one statement per renewal interval (a third of the
 *   lease) for every run this replica holds; a lease found lost is reported;
 * - sweep: about every fifth of the lease (between 0.2 and 1 s), the
 *   submitted or working tasks whose holder stopped are taken over (one
 *   replica wins each) and handed to the service to settle.
 * The replica's liveness lock lives in the LISTEN session: when a replica's
 * process dies, the database ends its session and the others take its
 * tasks over at their next sweep, without waiting for the lease to expire.
 */
export class PostgresCoordinator implements TaskCoordinator {
  readonly shared = true;
  readonly processId: string;
  readonly leaseTtlMs: number;
  readonly rerunOrphans: number;
  private readonly sql: ClusterStatements;
  private readonly watchers = new Map<string, Set<(lastSequence: number) => void>>();
  private readonly pending = new Map<string, number>();
  private flushing = false;
  private readonly holds = new Map<string, { epoch: number; onLost: () => void }>();
  private host: CoordinatorHost | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly busy = new Set<string>();
  private closing: Promise<void> | undefined;
  private listener!: CommitListener;

  private constructor(
    private readonly connection: Tables,
    private readonly processKey: number,
    private readonly options: PostgresCoordinatorOptions,
    private readonly logger: Logger | undefined,
  ) {
    this.processId = String(processKey);
    this.leaseTtlMs = interval(options.leaseTtlMs, DEFAULT_LEASE_TTL_MS, 'leaseTtlMs');
    this.rerunOrphans = options.rerunOrphans ?? 0;
    if (!Number.isInteger(this.rerunOrphans) || this.rerunOrphans < 0) throw new RangeError(`rerunOrphans must be a whole number, 0 or more (got ${this.rerunOrphans})`);
    this.sql = clusterStatements(connection.qualified);
  }

  /** Opens the coordinator: its LISTEN connection and liveness lock (see {@link createPostgresCoordinator}). */
  static async open(options: PostgresCoordinatorOptions): Promise<PostgresCoordinator> {
    const catchUp = interval(options.catchUpIntervalMs, DEFAULT_CATCH_UP_INTERVAL_MS, 'catchUpIntervalMs');
    const { store } = options;
    const connection = { pool: store.pool, schema: store.schema, qualified: quoteSchema(store.schema) };
    // The listener's own connection, made as the pool makes its connections.
    const client = store.pool.options as pg.ClientConfig;
    store.shareCommits(options.logger);
    // A random process key names the replica; on the rare clash with a live one, draw again.
    for (let attempt = 0; attempt < 5; attempt++) {
      const coordinator = new PostgresCoordinator(connection, randomProcessKey(), options, options.logger);
      if (await coordinator.listen(client)) {
        coordinator.every(catchUp, 'catch-up', () => coordinator.catchUp());
        coordinator.every(coordinator.leaseTtlMs / 3, 'renew', () => coordinator.renew());
        return coordinator;
      }
    }
    throw new Error('createPostgresCoordinator: could not find a free process key in 5 attempts');
  }

  watch(taskId: string, onCommit: (lastSequence: number) => void): () => void {
    let set = this.watchers.get(taskId);
    if (set === undefined) this.watchers.set(taskId, (set = new Set()));
    set.add(onCommit);
    const watchers = set;
    return () => {
      watchers.delete(onCommit);
      if (watchers.size === 0 && this.watchers.get(taskId) === watchers) this.watchers.delete(taskId);
    };
  }

  hold(taskId: string, epoch: number, onLost: () => void): () => void {
    const held = { epoch, onLost };
    this.holds.set(taskId, held);
    return () => {
      if (this.holds.get(taskId) === held) this.holds.delete(taskId);
    };
  }

  attach(host: CoordinatorHost): void {
    if (this.host !== undefined) throw new Error('PostgresCoordinator.attach: a coordinator serves one service');
    this.host = host;
    this.every(Math.min(1_000, Math.max(200, this.leaseTtlMs / 5)), 'sweep', () => this.sweep(false).then(() => undefined));
  }

  recover(): Promise<string[]> {
    return this.sweep(true);
  }

  /** Stops wake-ups, renewals and the sweep, hands this replica's remaining leases over, and ends its LISTEN connection (the store's pool stays open). Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers.splice(0)) clearInterval(timer);
      if (this.listener.connectedSince !== undefined) {
        await this.connection.pool.query(prepared(this.sql.expireOwn, [this.processId])).catch(() => undefined);
      }
      await this.listener.close();
      this.watchers.clear();
      this.holds.clear();
    })();
    return this.closing;
  }

  private async listen(client: pg.ClientConfig): Promise<boolean> {
    this.listener = new CommitListener({
      client,
      channel: eventsChannel(this.connection.schema),
      lock: { classKey: livenessClass(this.connection.schema), processKey: this.processKey },
      onCommit: (taskId, lastSequence) => this.announce(taskId, lastSequence),
      onConnected: () => void this.catchUp(),
      logger: this.logger,
    });
    return this.listener.start();
  }

  /** Runs `job` every `ms`, never two of one kind at once; failures are logged (the next run tries again). */
  private every(ms: number, kind: string, job: () => Promise<void>): void {
    const timer = setInterval(() => {
      if (this.busy.has(kind) || this.closing) return;
      this.busy.add(kind);
      job()
        .catch((error: unknown) => this.logger?.warn({ error: String(error) }, `Taskwire postgres: the cluster ${kind} failed; it runs again shortly`))
        .finally(() => this.busy.delete(kind));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** A commit of `taskId` was announced (or read): watchers hear the newest sequence once per event-loop turn. */
  private announce(taskId: string, lastSequence: number): void {
    if (!this.watchers.has(taskId)) return;
    if (!(lastSequence <= (this.pending.get(taskId) ?? -1))) this.pending.set(taskId, lastSequence);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const batch = [...this.pending];
      this.pending.clear();
      for (const [id, sequence] of batch) {
        for (const onCommit of this.watchers.get(id) ?? []) {
          try {
            onCommit(sequence);
          } catch (error) {
            this.logger?.error({ taskId: id, error: String(error) }, 'Taskwire postgres: a commit watcher threw');
          }
        }
      }
    });
  }

  /** Reads the last sequence of every watched task and announces it (lost notifications only delay). */
  private async catchUp(): Promise<void> {
    const ids = [...this.watchers.keys()];
    for (let at = 0; at < ids.length && !this.closing; at += CATCH_UP_BATCH) {
      const { rows } = await this.connection.pool.query<{ id: string; last_sequence: string }>(
        prepared(this.sql.lastSequences, [ids.slice(at, at + CATCH_UP_BATCH)]),
      );
      for (const row of rows) this.announce(row.id, Number(row.last_sequence));
    }
  }

  /** Renews every lease held; tells the runs whose lease is lost. */
  private async renew(): Promise<void> {
    if (this.holds.size === 0) return;
    const held = [...this.holds];
    const { rows } = await this.connection.pool.query<{ id: string }>(
      prepared(this.sql.renew, [this.processId, held.map(([id]) => id), held.map(([, h]) => h.epoch), this.leaseTtlMs]),
    );
    for (const { id } of rows) {
      const lost = held.find(([heldId]) => heldId === id)?.[1];
      if (lost === undefined || this.holds.get(id) !== lost) continue;
      this.holds.delete(id);
      this.logger?.warn({ taskId: id }, 'Taskwire postgres: this replica lost the lease of a task it runs; its run stops');
      lost.onLost();
    }
  }

  /** Takes over the tasks whose holder stopped and hands each to the service; resolves their ids. */
  private async sweep(startup: boolean): Promise<string[]> {
    const host = this.host;
    if (host === undefined) throw new Error('PostgresCoordinator: attach a service before recovering tasks');
    const since = this.listener.connectedSince;
    const trustLocks = startup || (since !== undefined && Date.now() - since >= LIVENESS_GRACE_MS);
    const settled: string[] = [];
    for (;;) {
      const { rows } = await this.connection.pool.query<{ id: string; lease_epoch: number; lease_takeovers: number }>(
        prepared(this.sql.takeOver, [this.processId, this.leaseTtlMs, startup, trustLocks, livenessClass(this.connection.schema), TAKE_OVER_BATCH, [...this.holds.keys()]]),
      );
      await Promise.all(
        rows.map(({ id, lease_epoch, lease_takeovers }) =>
          host.settleOrphan(id, lease_epoch, lease_takeovers).then(
            () => void settled.push(id),
            (error: unknown) => this.logger?.warn({ taskId: id, error: String(error) }, 'Taskwire postgres: could not settle a task whose replica stopped; a later sweep tries again'),
          ),
        ),
      );
      if (rows.length < TAKE_OVER_BATCH || this.closing) return settled;
    }
  }
}

/**
 * Opens the {@link PostgresCoordinator} of one replica, on the tables of its
 * task `store` (from then on the store's commits keep leases and announce
 * themselves). Give both to the replica's `TaskService` (`store`,
 * `coordinator`); every process so configured on one schema forms one
 * cluster. It opens one connection of its own (LISTEN) besides the store's
 * pool; `close` ends it. Close the coordinator after the service and
 * before the store.
 */
export function createPostgresCoordinator(options: PostgresCoordinatorOptions): Promise<PostgresCoordinator> {
  return PostgresCoordinator.open(options);
}
