import type { AgentContext } from './agent.js';
import type { CoalesceOptions } from './events.js';
import type { Struct } from '../schema/index.js';

/**
 * The model's text as chunks of one artifact. Coalescing (the default):
 * each delta is emitted at once (the first without `append`, the rest
 * with it) without waiting for its commit, and core merges the deltas that
 * come while a commit is in flight, or within `minIntervalMs` of the last
 * one, into one chunk; {@link close} sends the `lastChunk` (merged into
 * the waiting deltas when some wait, else as an empty text part). Without
 * (`coalesce: false`): each delta is sent, and committed, when the next
 * one arrives, and the last one with `lastChunk` when {@link close} is
 * called. Either way a reader always sees the artifact end.
 */
export class TextArtifact {
  private sent = 0;
  /** Without coalescing: the delta held until the next one (or the close). */
  private held: string | undefined;
  private last: Promise<void> | undefined;
  private failure: { readonly error: unknown } | undefined;

  constructor(
    private readonly ctx: Pick<AgentContext, 'artifact'>,
    private readonly artifactId: string,
    private readonly name: string,
    private readonly coalesce: false | CoalesceOptions,
  ) {}

  /**
   * Adds a delta. Coalescing, it resolves at once: a commit that failed
   * shows up as a throw of a later push (or of {@link close}). Without,
   * it resolves once the delta before it is committed.
   */
  async push(text: string): Promise<void> {
    if (this.failure !== undefined) throw this.failure.error;
    if (text === '') return;
    if (this.coalesce === false) {
      const previous = this.held;
      this.held = text;
      if (previous !== undefined) await this.send(previous, false);
      return;
    }
    const done = this.send(text, false);
    // Deltas merged into one chunk share its promise: one handler for it.
    if (done === this.last) return;
    this.last = done;
    done.catch((error: unknown) => (this.failure ??= { error }));
  }

  /** Sends the last chunk (with `metadata` on its event) once every delta is committed; does nothing when nothing was pushed. */
  async close(metadata?: Struct): Promise<void> {
    if (this.failure !== undefined) throw this.failure.error;
    const last = this.coalesce === false ? this.held : '';
    this.held = undefined;
    if (last !== undefined && (last !== '' || this.sent > 0)) await this.send(last, true, metadata);
  }

  private send(text: string, lastChunk: boolean, metadata?: Struct): Promise<void> {
    const append = this.sent > 0;
    this.sent++;
    return this.ctx.artifact(
      { artifactId: this.artifactId, name: this.name, text },
      { append, lastChunk, ...(metadata && { metadata }), ...(this.coalesce !== false && { coalesce: this.coalesce }) },
    );
  }
}
