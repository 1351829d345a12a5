import type { Logger } from '@taskwire/core';

/**
 * The commit watchers of one coordinator, per task id. An announced commit
 * reaches the task's watchers once per event-loop turn (`setImmediate`),
 * with the newest sequence announced in that turn; a sequence not newer
 * than one already pending is dropped. A watcher that throws is logged and
 * never stops the others.
 */
export class CommitWatchers {
  private readonly watchers = new Map<string, Set<(lastSequence: number) => void>>();
  private readonly pending = new Map<string, number>();
  private flushing = false;

  /** @param logger where a throwing watcher is reported */
  constructor(private readonly logger: Logger | undefined) {}

  /** Adds `onCommit` to the watchers of `taskId`; the returned function removes it again (idempotent). */
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

  /** The ids of the tasks that have watchers now. */
  ids(): string[] {
    return [...this.watchers.keys()];
  }

  /** A commit of `taskId` was announced (or read): its watchers hear the newest sequence once per event-loop turn; a task nobody watches is ignored. */
  announce(taskId: string, lastSequence: number): void {
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

  /** Forgets every watcher (pending announcements then reach nobody). */
  clear(): void {
    this.watchers.clear();
  }
}
