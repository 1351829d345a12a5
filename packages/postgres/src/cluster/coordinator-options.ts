import type { Logger } from '@taskwire/core';
import type { PostgresTaskStore } from '../task-store.js';

/** Default of {@link PostgresCoordinatorOptions.leaseTtlMs}: 15 s. */
export const DEFAULT_LEASE_TTL_MS = 15_000;
/** Default of {@link PostgresCoordinatorOptions.catchUpIntervalMs}: 1 s. */
export const DEFAULT_CATCH_UP_INTERVAL_MS = 1_000;
/** Default of {@link PostgresCoordinatorOptions.pingIntervalMs}: 2 s. */
export const DEFAULT_PING_INTERVAL_MS = 2_000;
/** Default of {@link PostgresCoordinatorOptions.pingTimeoutMs}: 3 s. */
export const DEFAULT_PING_TIMEOUT_MS = 3_000;

/** Options of `createPostgresCoordinator`: the replica's task store, and the cluster's timing. */
export interface PostgresCoordinatorOptions {
  /** The task store of this replica: the coordinator uses its schema and database, and makes its commits announce themselves. */
  readonly store: PostgresTaskStore;
  /**
   * How long a task's lease lasts without renewal (default 15 s); renewed
   * every third of it. Only an expired lease lets another replica take a
   * task over, so it bounds how long a task stays unsettled after its
   * replica died (killed, frozen, cut off): about this long plus one sweep.
   * A replica that cannot renew for nine tenths of it stops its runs itself.
   * A replica that stops cleanly (`close`) hands its leases over at once.
   */
  readonly leaseTtlMs?: number;
  /** How often watched tasks are re-read, so a lost notification only delays (default 1 s). */
  readonly catchUpIntervalMs?: number;
  /**
   * How often the LISTEN connection is pinged (default 2 s); a ping not
   * answered within `pingTimeoutMs` (default 3 s) means the path to the
   * database went silent (a half-open connection): the connection is
   * replaced, and so are the connections of the store's pool and the
   * coordinator's own (a statement in flight fails at once, retryably).
   * The interval also sets the TCP keep-alive delay.
   */
  readonly pingIntervalMs?: number;
  /** See {@link pingIntervalMs}. */
  readonly pingTimeoutMs?: number;
  /**
   * How many times a task whose replica stopped is run again on another
   * (its agent called anew with the task's last user message) before it
   * fails instead; counted per run (a new message starts the count again).
   * Default 0: never, since a re-run may repeat what the agent already did.
   */
  readonly rerunOrphans?: number;
  /**
   * A name for this replica that no other live process of the cluster has,
   * and that its next start has again (a pod name, a host and port, a
   * systemd instance): its leases carry it (`<name>#<random>`), and a
   * process started under the same name settles, at start-up (`recover`),
   * the tasks its predecessor left running at once instead of when their
   * leases expire, but only with proof that the predecessor is gone: the
   * LISTEN connection takes a session-level advisory lock on the name
   * (granted: no live process holds the name), and the predecessor has no
   * session left (`pg_stat_activity`). A second live process under a name
   * in use is not granted the lock: it logs an error and settles nothing
   * early (tasks are settled when their leases expire); nothing fails.
   * 1 to 40 characters, no `#`.
   */
  readonly replicaName?: string;
  /** Told about lost connections, lost leases and failed background work (once per streak). */
  readonly logger?: Logger;
}
