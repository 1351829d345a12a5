import type { AgentEvent } from '../agent/events.js';
import type { ArtifactChunk } from './chunk-merge.js';
import { mergeChunks } from './chunk-merge.js';

/** What a coalescer needs of its run: whether it was aborted, and why. */
export interface AbortState {
  readonly aborted: boolean;
  readonly reason: unknown;
}

/** The failure of a coalesced chunk's commit (boxed: an error may be any value, `undefined` included). */
export interface ChunkFailure {
  readonly error: unknown;
}

/** Chunks waiting for the store, and the promise their callers hold. */
interface Waiting {
  readonly chunks: ArtifactChunk[];
  /** The least time from the start of the run's previous chunk commit to theirs (ms). */
  readonly intervalMs: number;
  /** When the first of them was emitted (performance.now()): none waits much longer than the interval. */
  readonly since: number;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

const ignore = (): void => undefined;

function isCoalesced(event: AgentEvent): event is ArtifactChunk {
  return event.kind === 'artifact' && event.coalesce !== undefined && event.coalesce !== false;
}

function intervalOf(chunk: ArtifactChunk): number {
  return typeof chunk.coalesce === 'object' ? (chunk.coalesce.minIntervalMs ?? 0) : 0;
}

function waiting(first: ArtifactChunk, intervalMs: number, since: number): Waiting {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  // The agent may hold it without awaiting (that is how chunks get merged): its rejection is never unhandled.
  promise.catch(ignore);
  return { chunks: [first], intervalMs, since, promise, resolve, reject };
}

/**
 * The events of one run on their way to the store, with coalescing (see
 * `ArtifactOptions.coalesce`): an event that does not ask for it is
 * committed at once, exactly as without a coalescer; a coalesced chunk
 * emitted while an earlier event of the run is in flight (or sooner than
 * its `minIntervalMs` after the previous chunk commit started) waits, and
 * the appending chunks of the same artifact emitted meanwhile join it;
 * they go out as one event once the run has nothing in flight and the
 * interval has passed, or as soon as another event is emitted (which is
 * then committed after them: `commit` serialises a run's events in call
 * order). Costs nothing until the run emits its first coalesced chunk.
 */
export class RunEmitter {
  #inFlight = 0;
  #waiting: Waiting | undefined;
  #failure: ChunkFailure | undefined;
  #last: Promise<void> | undefined;
  #coalescing = false;
  /** When the run's last chunk commit started (performance.now()). */
  #lastStart = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** `commit` commits one agent event (in call order); `run` says whether the run was aborted. */
  constructor(
    private readonly commit: (event: AgentEvent) => Promise<void>,
    private readonly run: AbortState,
  ) {}

  /** Emits one event of the run: the context's `emit` (it needs no `this`). */
  readonly emit = (event: AgentEvent): Promise<void> => {
    if (!this.#coalescing) {
      if (!isCoalesced(event)) return this.commit(event);
      this.#coalescing = true;
    }
    if (!isCoalesced(event)) {
      this.#release();
      return this.#submit(event, false);
    }
    if (this.#failure !== undefined) return this.#refused(this.#failure.error);
    if (this.run.aborted) return this.#refused(this.run.reason);
    const open = this.#waiting;
    if (open !== undefined && open.chunks[0]!.artifact.artifactId === event.artifact.artifactId && event.append === true && open.chunks[open.chunks.length - 1]!.lastChunk !== true) {
      open.chunks.push(event);
      // The interval is over: the chunks go with this one, which came in time to join them.
      if (this.#inFlight === 0 && performance.now() >= this.#lastStart + open.intervalMs) this.#release();
      return open.promise;
    }
    this.#release();
    const intervalMs = intervalOf(event);
    const now = performance.now();
    if (this.#inFlight === 0 && now >= this.#lastStart + intervalMs) return this.#submitChunk(event);
    const next = waiting(event, intervalMs, now);
    this.#waiting = next;
    this.#schedule();
    return next.promise;
  };

  /**
   * Sends the waiting chunks at once, if any, and resolves once every
   * event emitted so far has settled, with the first failure of a
   * coalesced chunk (if one failed); `undefined` at once when the run
   * never coalesced.
   */
  drain(): Promise<ChunkFailure | undefined> | undefined {
    if (!this.#coalescing) return undefined;
    this.#release();
    const last = this.#last;
    if (last === undefined) return Promise.resolve(this.#failure);
    return last.then(
      () => this.#failure,
      () => this.#failure,
    );
  }

  #refused(error: unknown): Promise<void> {
    const refused = Promise.reject(error);
    refused.catch(ignore);
    return refused;
  }

  /** Commits `event` now; a coalesced one that fails stops the run's coalesced chunks. */
  #submit(event: AgentEvent, coalesced: boolean): Promise<void> {
    this.#inFlight++;
    const done = this.commit(event);
    this.#last = done;
    done.then(
      () => this.#settled(),
      (error: unknown) => {
        if (coalesced) this.#failure ??= { error };
        this.#settled();
      },
    );
    return done;
  }

  #submitChunk(chunk: ArtifactChunk): Promise<void> {
    this.#lastStart = performance.now();
    return this.#submit(chunk, true);
  }

  #settled(): void {
    if (--this.#inFlight === 0) this.#schedule();
  }

  /**
   * With nothing in flight: sends the waiting chunks now if the first of
   * them has waited the interval, else once it has (unless a chunk that
   * joins them after the interval since the last commit sends them first:
   * commits then start as deltas come, spaced at least the interval apart,
   * and no delta waits longer than the interval while the store keeps up).
   */
  #schedule(): void {
    const open = this.#waiting;
    if (open === undefined || this.#inFlight > 0 || this.#timer !== undefined) return;
    const wait = open.since + open.intervalMs - performance.now();
    if (wait <= 0) return this.#release();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#inFlight === 0) this.#release();
    }, wait);
  }

  /** Sends the waiting chunks as one event now (or refuses them after a failure or an abort). */
  #release(): void {
    const open = this.#waiting;
    if (open === undefined) return;
    this.#waiting = undefined;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#failure !== undefined) return open.reject(this.#failure.error);
    if (this.run.aborted) return open.reject(this.run.reason);
    this.#submitChunk(mergeChunks(open.chunks)).then(open.resolve, open.reject);
  }
}
