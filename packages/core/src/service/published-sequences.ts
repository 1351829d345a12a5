/**
 * How far past a task's stored last sequence a process that takes the task
 * over (from a gone holder, or back from itself when no run of its own
 * holds it) numbers its first commit (where the store can leave a gap,
 * `TaskStore.commitFrom`), the stored task logged first. Clients may have
 * seen events that a database failover with asynchronous replication lost;
 * no process left remembers how many, and a standby lags behind one task
 * by far fewer commits than this, so none of those numbers is used again
 * with other content.
 */
export const TAKE_OVER_SEQUENCE_GAP = 1_000_000;

/** How many tasks {@link PublishedSequences} remembers by default. */
const DEFAULT_LIMIT = 10_000;

/**
 * The newest sequence this process committed (and so may have published),
 * or streamed to a client from another process's commits, for each of the
 * tasks it did so most recently, up to `limit` tasks
 * (the oldest remembered is forgotten first). A commit that reads a task
 * from the store behind what is remembered here meets a store that lost
 * commits (a database failover): it goes after a gap, never under a number
 * a client may have seen (see `EventCommits`).
 */
export class PublishedSequences {
  private readonly last = new Map<string, number>();

  constructor(private readonly limit = DEFAULT_LIMIT) {}

  /** Remembers that `taskId`'s log reached `sequence` here; `created` (its first commit) replaces what an earlier task of the same id left. */
  note(taskId: string, sequence: number, created = false): void {
    const known = this.last.get(taskId);
    if (known !== undefined && known >= sequence && !created) return;
    this.last.set(taskId, sequence);
    if (known === undefined && this.last.size > this.limit) this.last.delete(this.last.keys().next().value!);
  }

  /** The newest sequence remembered for `taskId`, if any. */
  of(taskId: string): number | undefined {
    return this.last.get(taskId);
  }
}
