/**
 * Gathers the commits made in one event-loop turn into batches (one
 * statement each): a commit joins the batch flushed after the current turn's
 * I/O callbacks (`setImmediate`), and its promise settles with its own
 * outcome once the batch's statement has returned (so once it is durable).
 * A batch holds at most one commit per task, and a task's next commit waits
 * until the batch holding its previous one has returned: commits of one
 * task run in the order they were made, and two batches in flight never
 * share a task (so they never wait on each other's row locks).
 */
export class CommitBatcher<I, R> {
  private queue: { key: string; item: I; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private readonly busy = new Set<string>();
  private scheduled = false;

  /** `run` stores a batch and resolves one outcome per item, in order: a result, or the error that item rejects with. */
  constructor(private readonly run: (items: I[]) => Promise<(R | { readonly failed: unknown })[]>) {}

  /** Queues `item` (a commit of task `key`); settles with its outcome. */
  add(key: string, item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ key, item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch: typeof this.queue = [];
    const rest: typeof this.queue = [];
    for (const entry of this.queue) {
      if (this.busy.has(entry.key)) rest.push(entry);
      else {
        this.busy.add(entry.key);
        batch.push(entry);
      }
    }
    this.queue = rest;
    if (batch.length === 0) return;
    const settle = (outcomes: (R | { readonly failed: unknown })[] | undefined, error?: unknown) => {
      batch.forEach((entry, i) => {
        this.busy.delete(entry.key);
        const outcome = outcomes?.[i];
        if (outcomes === undefined) entry.reject(error);
        else if (typeof outcome === 'object' && outcome !== null && 'failed' in outcome) entry.reject(outcome.failed);
        else entry.resolve(outcome as R);
      });
      this.schedule();
    };
    this.run(batch.map((entry) => entry.item)).then(
      (outcomes) => settle(outcomes),
      (error: unknown) => settle(undefined, error),
    );
  }
}
