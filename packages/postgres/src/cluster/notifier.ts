import type { Logger } from '@taskwire/core';
import type pg from 'pg';
import { prepared } from '../schema-name.js';

/** Payloads longer than this are not sent (PostgreSQL's limit is 8,000 bytes): those tasks' watchers find their commits by the catch-up. */
const MAX_PAYLOAD_BYTES = 7_000;
const NOTIFY = 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload';

/**
 * Announces a replica's commits on the schema's channel: `"<last sequence>
 * <task id>"`, only ids and numbers. Not inside the commit: a NOTIFY in a
 * transaction holds PostgreSQL's notification lock through the commit's WAL
 * flush, which makes every such commit of the database wait for the one
 * before (measured: about 10x fewer commits/s at 32 connections). Instead,
 * once a commit has resolved, its announcement waits for the end of the
 * event-loop turn; the announcements of a turn go out in one statement (one
 * task's coalesced to its newest sequence), one statement in flight at a
 * time. A lost announcement (a failed statement, a process killed right
 * after its commit) only delays: watchers re-read their tasks periodically.
 */
export class CommitNotifier {
  private readonly pending = new Map<string, number>();
  private scheduled = false;
  private sending: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly logger?: Logger,
  ) {}

  /** Queues the announcement of a commit that left `taskId`'s log at `lastSequence`. */
  announce(taskId: string, lastSequence: number): void {
    if (Buffer.byteLength(taskId) > MAX_PAYLOAD_BYTES) return;
    if (!(lastSequence <= (this.pending.get(taskId) ?? -1))) this.pending.set(taskId, lastSequence);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /** Resolves once every announcement queued so far has been sent (or failed). */
  async idle(): Promise<void> {
    while (this.scheduled || this.sending) await (this.sending ?? new Promise((resolve) => setImmediate(resolve)));
  }

  private async flush(): Promise<void> {
    // One statement at a time: what arrives meanwhile goes out with the next.
    if (this.sending) await this.sending.catch(() => undefined);
    this.scheduled = false;
    if (this.pending.size === 0) return;
    const payloads = [...this.pending].map(([taskId, sequence]) => `${sequence} ${taskId}`);
    this.pending.clear();
    this.sending = this.pool
      .query(prepared(NOTIFY, [this.channel, payloads]))
      .then(
        () => undefined,
        (error: unknown) => this.logger?.warn({ error: String(error), tasks: payloads.length }, 'Taskwire postgres: could not announce commits; other replicas see them at their next catch-up'),
      )
      .finally(() => (this.sending = undefined));
    await this.sending;
  }
}
