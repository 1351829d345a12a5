import type { SnapshotOptions } from '@taskwire/core';
import type { PostgresConnectionOptions } from './connection.js';
import type { EventRetentionOptions } from './retention.js';
import type { TaskCountOptions } from './task-counts.js';

/** Options of `createPostgresTaskStore`: the connection, and how long event logs are kept. */
export interface PostgresTaskStoreOptions extends PostgresConnectionOptions, TaskCountOptions {
  /** Event log retention (default: every event is kept as long as its task). */
  readonly retention?: EventRetentionOptions;
  /**
   * How far a streaming task's stored JSON may lag its event log (default:
   * 100 events or 1 s, and beyond, as long as the JSON of the events logged
   * since is less than the task's: see core's `SnapshotLags`): chunks and
   * same-state status updates are logged alone in between, so each costs
   * the same however long the task grew. `events: 0` writes the JSON at
   * every commit. Reads are exact regardless (see {@link SnapshotOptions}).
   */
  readonly snapshots?: SnapshotOptions;
  /**
   * Stores the updates made in one event-loop turn together, in one
   * statement (default true): many streaming tasks then cost one round trip
   * and one transaction per turn instead of one per event. Each commit still
   * resolves only once stored, with its own outcome. The commits of
   * replicas sharing the tables (`shareCommits`) are batched too, each row
   * under its own lease condition (a lost lease refuses only its own
   * commit). Creates are always single statements.
   */
  readonly batchCommits?: boolean;
  /**
   * How often the store reads the recorded contract steps again, in
   * milliseconds (default 10,000; 10 to 2^31 - 1): after `taskwire-postgres
   * contract`, a running replica switches to the new way of writing within
   * this time.
   */
  readonly contractRefreshMs?: number;
}
