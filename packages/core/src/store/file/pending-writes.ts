import type { LiveState } from './records.js';

/** What the next commit of a task must see of it: existence, version, owner and last event sequence. */
export interface TaskView {
  readonly exists: boolean;
  readonly version: number;
  readonly owner: string;
  readonly lastSequence: number;
}

const ABSENT: TaskView = { exists: false, version: 0, owner: '', lastSequence: 0 };

/**
 * The writes of the file store that are queued but not yet durable, per
 * task. A commit is checked against the task as the writes queued before it
 * leave it, not as it is on disk, so concurrent commits to one task queue up
 * correctly while reads still see acknowledged state only.
 */
export class PendingWrites {
  private readonly views = new Map<string, TaskView & { readonly ticket: number }>();
  private tickets = 0;

  constructor(private readonly state: LiveState) {}

  /** True while a write of `taskId` is queued. */
  has(taskId: string): boolean {
    return this.views.has(taskId);
  }

  /** The task as the next write must see it: as the newest queued write leaves it, else as stored. */
  view(taskId: string): TaskView {
    const pending = this.views.get(taskId);
    if (pending !== undefined) return pending;
    const live = this.state.tasks.get(taskId);
    return live === undefined ? ABSENT : { exists: true, version: live.version, owner: live.owner, lastSequence: live.lastSequence };
  }

  /** Queues a write that leaves the task as `view` (or gone, when undefined); returns its ticket for {@link release}. */
  hold(taskId: string, view: TaskView = ABSENT): number {
    const ticket = ++this.tickets;
    this.views.set(taskId, { ...view, ticket });
    return ticket;
  }

  /** The write of `ticket` is durable (or failed): forget it unless a newer one is queued. */
  release(taskId: string, ticket: number): void {
    if (this.views.get(taskId)?.ticket === ticket) this.views.delete(taskId);
  }
}
