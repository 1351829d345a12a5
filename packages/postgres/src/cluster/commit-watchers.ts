import type { Logger } from '@taskwire/core';

/**
 * The watchers of a replica's tasks (`TaskCoordinator.watch`): announced
 * commits of a watched task are coalesced to its newest sequence and heard
 * once per event-loop turn; a watcher that throws is logged.
 */
export class CommitWatchers {
  private readonly watchers = new Map<string, Set<(lastSequence: number) => void>>();
  private readonly pending = new Map<string, number>();
  private flushing = false;

  constructor(private readonly logger: Logger | undefined) {}

  /** Calls `onCommit` with the announced commits of `taskId` until the function returned is called. */
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

  /** The ids of the tasks watched now. */
  ids(): string[] {
    return [...this.watchers.keys()];
  }

  /** Forgets every watcher. */
  clear(): void {
    this.watchers.clear();
  }

  /** A commit of `taskId` was announced (or read): watchers hear the newest sequence once per event-loop turn. */
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
}
