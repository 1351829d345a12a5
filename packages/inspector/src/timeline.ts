import type { StreamEvent, StreamResponse } from '@taskwire/core';

/** One event of a stream as the timeline shows it. */
export interface TimelineEntry {
  /** Its place in the stream as received (1, 2, ...). */
  readonly index: number;
  /** The agent's sequence number (SSE `id`, gRPC metadata, tRPC id); 0 when the agent sends none. */
  readonly sequence: number;
  /** Milliseconds since the stream was opened. */
  readonly atMs: number;
  /** `task`, `message`, `statusUpdate` or `artifactUpdate`. */
  readonly kind: string;
  /** The task state it carries, if any. */
  readonly state?: string;
  /** The task's generation it carries (A2A 1.1: on a task or an update event), if any. */
  readonly generation?: number;
  /** `gap`: sequence numbers were skipped before it; `duplicate`: its sequence was seen already. */
  readonly flags: readonly ('gap' | 'duplicate')[];
  /** The event as received. */
  readonly response: StreamResponse;
}

/**
 * Turns stream events into {@link TimelineEntry}s, flagging gaps (a
 * sequence more than one past the last) and duplicates (a sequence not past
 * the last). Agents that send no sequence numbers (0) are never flagged.
 */
export class Timeline {
  private last = 0;
  private count = 0;
  private readonly started = performance.now();

  /** The entry for the next event, as it arrives. */
  add(event: StreamEvent): TimelineEntry {
    const { sequence, response } = event;
    const flags: ('gap' | 'duplicate')[] = [];
    if (sequence > 0) {
      if (this.last > 0 && sequence <= this.last) flags.push('duplicate');
      else if (this.last > 0 && sequence > this.last + 1) flags.push('gap');
      this.last = Math.max(this.last, sequence);
    }
    const kind = Object.keys(response)[0] ?? 'unknown';
    const state = 'task' in response ? response.task.status.state : 'statusUpdate' in response ? response.statusUpdate.status.state : undefined;
    const generation = 'task' in response ? response.task.generation : 'statusUpdate' in response ? response.statusUpdate.generation : 'artifactUpdate' in response ? response.artifactUpdate.generation : undefined;
    this.count += 1;
    const atMs = Math.round((performance.now() - this.started) * 10) / 10;
    return { index: this.count, sequence, atMs, kind, ...(state && { state }), ...(generation !== undefined && { generation: Number(generation) }), flags, response };
  }
}
