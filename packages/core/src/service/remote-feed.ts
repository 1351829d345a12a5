import type { StoredEvent, TaskStore } from '../store/task-store.js';
import type { Logger } from './agent-run.js';
import type { TaskCoordinator } from './coordination.js';

/** Events read from the store per catch-up read. */
const READ_BATCH = 256;

interface Followed {
  refs: number;
  /** The newest sequence delivered here (by the feed or by this process's own commits). */
  head: number;
  /** The newest sequence a wake-up announced. */
  wanted: number;
  reading: boolean;
  stop: () => void;
}

/**
 * Brings the events other processes commit to a task into this process:
 * while a task is followed, every wake-up of the coordinator that announces
 * a sequence beyond what this process has leads to one store read of the
 * missing events (one read in flight per task; wake-ups during it coalesce
 * into the next), handed to `deliver` in order. Own commits are reported
 * with {@link seen} and never read back. A failed read is logged and retried
 * at the next wake-up (the coordinator's periodic catch-up sends one).
 */
export class RemoteFeed {
  private readonly tasks = new Map<string, Followed>();

  constructor(
    private readonly coordinator: TaskCoordinator,
    private readonly store: TaskStore,
    private readonly deliver: (taskId: string, events: readonly StoredEvent[]) => void,
    private readonly logger?: Logger,
  ) {}

  /**
   * Follows `taskId` from `head` (the last sequence this process has) until
   * the returned function is called; nested follows of one task share one
   * watch, and the task is dropped when the last one ends.
   */
  follow(taskId: string, head: number): () => void {
    let followed = this.tasks.get(taskId);
    if (followed === undefined) {
      followed = { refs: 0, head, wanted: head, reading: false, stop: () => {} };
      this.tasks.set(taskId, followed);
      const entry = followed;
      entry.stop = this.coordinator.watch(taskId, (lastSequence) => this.wake(taskId, entry, lastSequence));
    } else if (head > followed.head) {
      followed.head = head;
    }
    followed.refs++;
    const entry = followed;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--entry.refs > 0) return;
      entry.stop();
      if (this.tasks.get(taskId) === entry) this.tasks.delete(taskId);
    };
  }

  /** This process delivered events of `taskId` up to `sequence` itself (its own commit). */
  seen(taskId: string, sequence: number): void {
    const followed = this.tasks.get(taskId);
    if (followed !== undefined && sequence > followed.head) followed.head = sequence;
  }

  /** True while `taskId` is followed. */
  follows(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  private wake(taskId: string, followed: Followed, lastSequence: number): void {
    if (lastSequence > followed.wanted) followed.wanted = lastSequence;
    if (followed.reading || followed.wanted <= followed.head) return;
    followed.reading = true;
    void this.read(taskId, followed).finally(() => {
      followed.reading = false;
    });
  }

  private async read(taskId: string, followed: Followed): Promise<void> {
    try {
      while (followed.refs > 0 && followed.wanted > followed.head) {
        const events = await this.store.readEvents(taskId, followed.head, READ_BATCH);
        const fresh = events.filter((event) => event.sequence > followed.head);
        if (fresh.length === 0) {
          // The announced events are not there (the task was removed): nothing to bring.
          followed.wanted = followed.head;
          return;
        }
        followed.head = fresh[fresh.length - 1]!.sequence;
        if (followed.head > followed.wanted) followed.wanted = followed.head;
        this.deliver(taskId, fresh);
      }
    } catch (error) {
      this.logger?.warn({ taskId, error: String(error) }, 'could not read the events another process committed; trying again at the next wake-up');
    }
  }
}
