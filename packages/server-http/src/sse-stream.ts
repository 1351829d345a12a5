import type { A2AError, Logger, StreamEvent } from '@taskwire/core';
import { asA2AError } from './replies.js';

/** How one binding writes stream items and a mid-stream error as SSE frames. */
export interface SseEncoder {
  /** The frame of one event (`id: <sequence>` and one `data:` line). */
  event(event: StreamEvent): string;
  /** The frame that reports an error after the stream has started. */
  error(error: A2AError): string;
}

/** The comment sent while a stream is quiet, so proxies and clients keep the connection. */
export const HEARTBEAT = ': heartbeat\n\n';

/** Response headers of every SSE answer. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

const TICK = Symbol('heartbeat');

/**
 * A pull-based SSE body over a service stream. The host asks for one chunk
 * at a time ({@link pull}) and only when its wire can take it, so a slow
 * reader never makes the server buffer more than one event: the service's
 * subscription holds the rest (bounded, with catch-up from the store).
 *
 * While no event arrives for `heartbeatMs`, `pull` answers a heartbeat
 * comment and keeps waiting for the same event. {@link cancel} (the client
 * went away) aborts the call's signal, which ends the subscription; it never
 * cancels the task.
 */
export class SseStream {
  private readonly iterator: AsyncIterator<StreamEvent>;
  private pending: Promise<IteratorResult<StreamEvent>> | undefined;
  private finished = false;
  private readonly closedListeners = new Set<() => void>();

  constructor(
    events: AsyncIterable<StreamEvent>,
    private readonly encoder: SseEncoder,
    private readonly abort: AbortController,
    private readonly heartbeatMs: number,
    private readonly logger: Logger | undefined,
  ) {
    this.iterator = events[Symbol.asyncIterator]();
  }

  /** True once the stream has ended or was canceled. */
  get closed(): boolean {
    return this.finished;
  }

  /** The next chunk to write (an event, a heartbeat or an error frame), or `undefined` at the end. */
  async pull(): Promise<string | undefined> {
    if (this.finished) return undefined;
    const next = (this.pending ??= this.iterator.next());
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const outcome =
        this.heartbeatMs > 0
          ? await Promise.race([next, new Promise<typeof TICK>((resolve) => (timer = setTimeout(resolve, this.heartbeatMs, TICK)))])
          : await next;
      if (outcome === TICK) return this.finished ? undefined : HEARTBEAT;
      this.pending = undefined;
      if (outcome.done || this.finished) {
        this.finish();
        return undefined;
      }
      return this.encoder.event(outcome.value);
    } catch (error) {
      this.pending = undefined;
      const wasOpen = !this.finished;
      this.finish();
      return wasOpen ? this.encoder.error(asA2AError(error, this.logger)) : undefined;
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }

  /**
   * Stops the stream because the client is gone or the server is closing:
   * aborts the call (its subscription ends) and releases the iterator. The
   * task itself keeps running and keeps its final state.
   */
  cancel(): void {
    if (this.finished) return;
    this.abort.abort(new Error('The client closed the stream'));
    this.pending?.catch(() => undefined);
    void Promise.resolve(this.iterator.return?.()).catch(() => undefined);
    this.finish();
  }

  /** Calls `listener` once when the stream ends or is canceled. */
  onClosed(listener: () => void): void {
    if (this.finished) listener();
    else this.closedListeners.add(listener);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const listener of this.closedListeners) listener();
    this.closedListeners.clear();
  }
}
