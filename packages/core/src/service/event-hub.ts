import type { StoredEvent, TaskStore } from '../store/task-store.js';
import type { Logger } from './agent-run.js';
import type { TaskCoordinator } from './coordination.js';
import { RemoteFeed } from './remote-feed.js';

/** Most events a subscription buffers before it falls back to reading the store. */
const DEFAULT_BUFFER = 256;

/**
 * One reader of one task's events, from a known sequence on. Live events are
 * buffered up to a bound; past it the buffer is dropped and the reader
 * catches up from the store's log, so a slow reader costs bounded memory and
 * still misses nothing. Events at or below the last delivered sequence are
 * ignored, so each is delivered once, in order.
 */
export class Subscription {
  private buffer: StoredEvent[] = [];
  private behind = false;
  private wake: (() => void) | undefined;
  private closed = false;
  private failure: { readonly error: unknown; readonly upTo: number } | undefined;
  /** How many events were skipped because the store had dropped them. */
  skipped = 0;
  /** True for the stream of the call that started the task's current turn (a SendStreamingMessage): see {@link EventHub.failTurn}. */
  turn = false;

  constructor(
    private readonly store: TaskStore,
    readonly taskId: string,
    /** The sequence of the last event this reader has (or does not need). */
    public lastSequence: number,
    private readonly bufferLimit = DEFAULT_BUFFER,
  ) {}

  /** Called by the hub with newly committed events, in sequence order. */
  push(events: readonly StoredEvent[]): void {
    if (this.closed) return;
    for (const event of events) {
      if (this.behind) break;
      if (this.buffer.length >= this.bufferLimit) {
        this.buffer = [];
        this.behind = true;
      } else {
        this.buffer.push(event);
      }
    }
    this.wake?.();
  }

  /**
   * The next event after {@link lastSequence}, waiting for one if needed.
   * Resolves `undefined` when `signal` aborts or the subscription is closed.
   */
  async next(signal?: AbortSignal): Promise<StoredEvent | undefined> {
    for (;;) {
      if (this.closed || signal?.aborted) return undefined;
      const buffered = this.takeBuffered();
      if (buffered && (this.failure === undefined || buffered.sequence <= this.failure.upTo)) return buffered;
      if (this.failure !== undefined && (buffered || !this.behind)) throw this.failure.error;
      if (this.behind) {
        this.behind = false;
        const caughtUp = await this.store.readEvents(this.taskId, this.lastSequence, this.bufferLimit);
        if (caughtUp.length === this.bufferLimit) this.behind = true;
        this.buffer.unshift(...caughtUp.filter((e) => e.sequence > this.lastSequence));
        const first = this.buffer[0];
        if (first && first.sequence > this.lastSequence + 1) {
          // The store no longer has the events in between (retention): skip to what exists.
          this.skipped += first.sequence - this.lastSequence - 1;
          this.lastSequence = first.sequence - 1;
        }
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener('abort', done);
          this.wake = undefined;
          resolve();
        };
        this.wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Ends the reader with `error`: `next` delivers the events up to sequence `upTo`, then rejects with it. */
  fail(error: unknown, upTo: number): void {
    this.failure ??= { error, upTo };
    this.wake?.();
  }

  /** Makes the next read start from the store's log after {@link lastSequence} (a resume). */
  catchUp(): void {
    this.behind = true;
  }

  /** Stops the subscription; a pending `next` resolves `undefined`. */
  close(): void {
    this.closed = true;
    this.buffer = [];
    this.wake?.();
  }

  private takeBuffered(): StoredEvent | undefined {
    while (this.buffer.length > 0) {
      const event = this.buffer.shift()!;
      if (event.sequence <= this.lastSequence) continue;
      if (event.sequence !== this.lastSequence + 1) {
        // A gap: something was committed that we did not see; read it from the store.
        this.buffer.unshift(event);
        this.behind = true;
        return undefined;
      }
      this.lastSequence = event.sequence;
      return event;
    }
    return undefined;
  }
}

/** Told about every batch of committed events of every task (see {@link EventHub.observe}). */
export type CommitObserver = (taskId: string, events: readonly StoredEvent[]) => void;

/**
 * Routes committed events to the subscriptions of their task. With a shared
 * coordinator (several processes on one store), a task with subscriptions
 * here is also followed for the commits other processes make to it (see
 * {@link RemoteFeed}); those reach the subscriptions, not the observers.
 */
export class EventHub {
  private readonly byTask = new Map<string, Set<Subscription>>();
  private readonly observers = new Set<CommitObserver>();
  private readonly feed: RemoteFeed | undefined;
  private readonly following = new Map<string, () => void>();

  constructor(
    private readonly store: TaskStore,
    coordinator?: TaskCoordinator,
    logger?: Logger,
  ) {
    if (coordinator?.shared) this.feed = new RemoteFeed(coordinator, store, (taskId, events) => this.deliver(taskId, events), logger);
  }

  /** Registers a reader of `taskId` that has everything up to `lastSequence`. */
  subscribe(taskId: string, lastSequence: number): Subscription {
    const subscription = new Subscription(this.store, taskId, lastSequence);
    let set = this.byTask.get(taskId);
    if (!set) this.byTask.set(taskId, (set = new Set()));
    set.add(subscription);
    if (this.feed && !this.following.has(taskId)) this.following.set(taskId, this.feed.follow(taskId, lastSequence));
    else this.feed?.seen(taskId, lastSequence);
    return subscription;
  }

  /** Removes and closes a reader. */
  unsubscribe(subscription: Subscription): void {
    subscription.close();
    const set = this.byTask.get(subscription.taskId);
    set?.delete(subscription);
    if (set?.size === 0) {
      this.byTask.delete(subscription.taskId);
      this.following.get(subscription.taskId)?.();
      this.following.delete(subscription.taskId);
    }
  }

  /**
   * Ends the turn streams of `taskId` (see {@link Subscription.turn}) with
   * `error` after the events up to `upTo`: the call that started the turn
   * was refused (see `AgentContext.refuse`). Other readers go on.
   */
  failTurn(taskId: string, error: unknown, upTo: number): void {
    const set = this.byTask.get(taskId);
    if (set) for (const subscription of set) if (subscription.turn) subscription.fail(error, upTo);
  }

  /** Closes every reader (their streams end, so their clients resume elsewhere): a draining server. */
  closeAll(): void {
    for (const set of [...this.byTask.values()]) for (const subscription of [...set]) this.unsubscribe(subscription);
  }

  /** True when {@link publish} would deliver events of `taskId` to anyone (a reader of it, or an observer). */
  wants(taskId: string): boolean {
    return this.observers.size > 0 || this.byTask.has(taskId);
  }

  /** Delivers events committed for `taskId` (in sequence order) to its readers, then to the observers. */
  publish(taskId: string, events: readonly StoredEvent[]): void {
    if (events.length === 0) return;
    this.feed?.seen(taskId, events[events.length - 1]!.sequence);
    this.deliver(taskId, events);
    for (const observer of this.observers) observer(taskId, events);
  }

  /** Hands events of `taskId` to its readers. */
  private deliver(taskId: string, events: readonly StoredEvent[]): void {
    const set = this.byTask.get(taskId);
    if (set) for (const subscription of set) subscription.push(events);
  }

  /**
   * Calls `observer` synchronously with every batch of committed events of
   * every task, in commit order per task (the push delivery uses it). It
   * must not throw. Returns a function that stops the observation.
   */
  observe(observer: CommitObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Number of open subscriptions of a task (for tests and metrics). */
  count(taskId: string): number {
    return this.byTask.get(taskId)?.size ?? 0;
  }
}
