import type { Logger } from '@taskwire/core';
import type { Connection, PostgresConnectionOptions } from './connection.js';
import { databaseError } from './database-errors.js';
import { openMigrated } from './migrate.js';
import { SNAPSHOT_LOGS_STEP } from './snapshot-guard-migration.js';
import { LEASE_HEARTBEATS_STEP } from './cluster/heartbeat-migration.js';

/**
 * The contract steps this release knows, oldest first: each switches on a
 * way of writing that an older release cannot read, so it is recorded
 * (`taskwire-postgres contract`) only once no older release is connected.
 */
export const CONTRACT_STEPS: readonly { readonly step: string; readonly what: string }[] = [
  { step: SNAPSHOT_LOGS_STEP, what: "commits that only append leave the task's JSON behind its event log (releases before snapshot logs read only the JSON)" },
  { step: LEASE_HEARTBEATS_STEP, what: "replicas keep running tasks' leases alive by one heartbeat row each, no longer renewing every task row (releases before heartbeats take a task over when its row's lease expired)" },
];

/** How often a store looks again for steps recorded meanwhile, unless told otherwise (`contractRefreshMs`). */
export const CONTRACT_REFRESH_MS = 10_000;

/**
 * The contract steps recorded in a schema, as one process sees them: read
 * when the store opens and again every `refreshMs` in the background (a failed read keeps what was known and is logged), so
 * replicas switch a step on by themselves shortly after it is recorded.
 */
export class ContractSteps {
  private recorded = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly connection: Connection,
    private readonly logger: Logger | undefined,
  ) {}

  /** Reads the steps of `connection`'s schema and keeps them fresh. */
  static async open(connection: Connection, logger: Logger | undefined, refreshMs: number): Promise<ContractSteps> {
    const steps = new ContractSteps(connection, logger);
    await steps.refresh();
    steps.timer = setInterval(() => {
      steps.refresh().catch((error: unknown) => logger?.warn({ error: String(error) }, 'Taskwire postgres: could not read the contract steps; trying again later'));
    }, refreshMs);
    steps.timer.unref();
    return steps;
  }

  /** True once `step` is recorded. */
  has(step: string): boolean {
    return this.recorded.has(step);
  }

  /** Stops looking again. */
  stop(): void {
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    try {
      const { rows } = await this.connection.pool.query<{ step: string }>(`SELECT step FROM ${this.connection.qualified}.taskwire_contract_steps`);
      this.recorded = new Set(rows.map((row) => row.step));
    } catch (error) {
      throw databaseError(error, 'reading the contract steps');
    }
  }
}

/** Most lease holders a refused {@link recordContractSteps} names. */
const NAMED_HOLDERS = 5;

/**
 * Records every contract step of {@link CONTRACT_STEPS} in the schema
 * (migrated to this release's version: `SchemaNotReadyError` otherwise);
 * resolves the steps that were not recorded before. Run it only once no
 * replica of an older release is connected: those releases cannot read
 * what the steps switch on. Refuses (an Error naming up to five of them)
 * to record `lease-heartbeats` while a lease holder without a heartbeat
 * row, a replica of a release before heartbeats, holds a live lease (the
 * row's expiry on the database's clock): once recorded, that release
 * would take over healthy replicas' tasks. It cannot see an older replica
 * that holds nothing. Idempotent.
 */
export async function recordContractSteps(options: PostgresConnectionOptions): Promise<string[]> {
  const connection = await openMigrated(options, 'recordContractSteps', 'recording the contract steps');
  try {
    const S = connection.qualified;
    const { rows: older } = await connection.pool.query<{ holder: string }>(
      `SELECT DISTINCT t.lease_holder AS holder FROM ${S}.tasks t
       WHERE t.lease_holder IS NOT NULL AND t.lease_expires_at > now()
         AND NOT EXISTS (SELECT 1 FROM ${S}.lease_heartbeats b WHERE b.holder = t.lease_holder)
         AND NOT EXISTS (SELECT 1 FROM ${S}.taskwire_contract_steps WHERE step = $1)
       ORDER BY 1 LIMIT ${NAMED_HOLDERS}`,
      [LEASE_HEARTBEATS_STEP],
    );
    if (older.length > 0) {
      throw new Error(
        `refused: replicas of a release without lease heartbeats still hold live leases (holders: ${older.map((r) => r.holder).join(', ')}); ` +
          `replace them with this release first (a replica of this release that started a moment ago shows up here too until its first renewal: run the command again)`,
      );
    }
    const { rows } = await connection.pool.query<{ step: string }>(
      `INSERT INTO ${connection.qualified}.taskwire_contract_steps (step) SELECT unnest($1::text[]) ON CONFLICT (step) DO NOTHING RETURNING step`,
      [CONTRACT_STEPS.map((s) => s.step)],
    );
    return rows.map((row) => row.step);
  } catch (error) {
    throw databaseError(error, 'recording the contract steps');
  } finally {
    if (connection.owned) await connection.pool.end();
  }
}
