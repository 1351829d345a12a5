import type { AgentContext, Struct } from '@taskwire/core';

/**
 * The model's text as chunks of one artifact: each delta is sent when the
 * next one arrives (the first without `append`, the rest with it), and the
 * last with `lastChunk` when {@link close} is called, so a reader always
 * sees the artifact end.
 */
export class TextArtifact {
  private held: string | undefined;
  private sent = 0;

  constructor(
    private readonly ctx: Pick<AgentContext, 'artifact'>,
    private readonly artifactId: string,
    private readonly name: string,
  ) {}

  /** True once a chunk was sent (the task exists). */
  get started(): boolean {
    return this.sent > 0;
  }

  /** Adds a delta; sends the one held before it. */
  async push(text: string): Promise<void> {
    if (text === '') return;
    const previous = this.held;
    this.held = text;
    if (previous !== undefined) await this.send(previous, false);
  }

  /** Sends the held delta as the last chunk (with `metadata` on the event); does nothing when nothing was pushed. */
  async close(metadata?: Struct): Promise<void> {
    const last = this.held;
    this.held = undefined;
    if (last !== undefined) await this.send(last, true, metadata);
  }

  private async send(text: string, lastChunk: boolean, metadata?: Struct): Promise<void> {
    const append = this.sent > 0;
    this.sent++;
    await this.ctx.artifact(
      { artifactId: this.artifactId, name: this.name, text },
      { append, lastChunk, ...(metadata && { metadata }) },
    );
  }
}
