import type { Logger } from '@taskwire/core';

/** The longest replica name: its leases' holder is `<name>#<16 hex digits>`. */
export const MAX_REPLICA_NAME = 40;

/**
 * A replica's name (see `PostgresCoordinatorOptions.replicaName`) and what
 * its LISTEN connection learnt of the name's lock: a refusal means another
 * live process uses the name. It is logged as an error once per streak of
 * refusals; a grant after a refusal is logged too.
 */
export class ReplicaName {
  /** `<name>#`: the start of every lease holder this name's processes had. */
  readonly predecessors: string;
  private refused = false;

  constructor(
    readonly name: string,
    private readonly processId: string,
    private readonly logger: Logger | undefined,
  ) {
    this.predecessors = `${name}#`;
  }

  /** Throws a RangeError unless `name` can name a replica (1 to 40 characters, no `#`). */
  static check(name: string): void {
    if (name === '' || name.includes('#') || name.length > MAX_REPLICA_NAME) {
      throw new RangeError(`replicaName must be 1 to ${MAX_REPLICA_NAME} characters without "#" (got "${name}")`);
    }
  }

  /** The LISTEN connection asked for the name's lock (`first`: at start-up, else after a reconnection). */
  onLock(granted: boolean, first: boolean): void {
    const { name } = this;
    if (granted) {
      if (this.refused) this.logger?.info?.({ replicaName: name }, 'Taskwire postgres: this replica holds its name again');
      this.refused = false;
      return;
    }
    if (this.refused) return;
    this.refused = true;
    this.logger?.error(
      { replicaName: name, processId: this.processId },
      first
        ? `Taskwire postgres: another live process uses the replica name "${name}" (or its earlier process's database session has not ended yet); two live replicas must never share one: give each its own, such as its pod name. ` +
            "This one settles nothing its name's earlier processes left running at start-up; those tasks are settled when their leases expire, so nothing fails"
        : `Taskwire postgres: while this replica's LISTEN connection was down, another live process took the replica name "${name}" (two live replicas must never share one). ` +
            "Both go on and neither settles the other's tasks; a restart under this name settles its predecessor's tasks only when their leases expire",
    );
  }
}
