import type { StreamResponse, Transport } from '@taskwire/core';
import { A2AError, isTerminal, stateOf } from '@taskwire/core';
import pg from 'pg';
import type { Cluster } from './cluster.js';
import { isRetryable, send } from './fault-kit.js';

/** What a stored or received event is, for comparing the two (wire encodings aside): its kind, state and text. */
export function fingerprint(response: StreamResponse): string {
  if ('statusUpdate' in response) return `status ${response.statusUpdate.status.state}`;
  if ('artifactUpdate' in response) return `artifact ${response.artifactUpdate.artifact.artifactId} ${JSON.stringify(response.artifactUpdate.artifact.parts)}`;
  if ('task' in response) return `task ${response.task.status.state}`;
  return Object.keys(response)[0] ?? 'nothing';
}

/** What clients were told while the database failed over: acknowledged tasks and the events their streams showed. */
export class FailoverLoad {
  /** Tasks whose blocking SendMessage answered COMPLETED, with when it was sent and when the answer came. */
  readonly acked: { readonly id: string; readonly sent: number; readonly at: number }[] = [];
  /** Per task followed, per sequence, the event a subscriber received. */
  readonly seen = new Map<string, Map<number, string>>();
  /** Tasks started (streams, continuations, cancels): each must end in one terminal state or stay resumable. */
  readonly planted: string[] = [];
  /** Errors that were not the retryable "database unreachable" (nor a dropped stream). */
  readonly unexpected: string[] = [];
  /** Resumes refused because the log no longer reaches the client's sequence. */
  beyondLog = 0;
  private stopped = false;
  private readonly running: Promise<void>[] = [];

  constructor(private readonly cluster: Cluster) {}

  /** Starts the load on every replica: acknowledged echoes, followed streams (on the other replica), continuations and cancels. */
  start(): void {
    for (const replica of this.cluster.replicas) {
      const here = this.cluster.transport('JSON-RPC', replica.index);
      const other = () => this.cluster.transport('JSON-RPC', (replica.index + 1) % this.cluster.replicas.length);
      this.running.push(
        this.loop(async () => {
          const sent = Date.now();
          const { id } = await send(here, 'echo acked', { blocking: true });
          this.acked.push({ id, sent, at: Date.now() });
        }),
      );
      this.running.push(this.loop(async () => this.follow(other, await this.plant(here, 'slow 12 100'))));
      this.running.push(this.loop(async () => {
        const asked = await this.plant(here, 'quote', true);
        await send(here, 'insta', { taskId: asked, blocking: true });
      }));
      this.running.push(this.loop(async () => {
        const id = await this.plant(here, 'slow 30 100');
        await new Promise((resolve) => setTimeout(resolve, 300));
        await here.unary('CancelTask', { id });
      }));
    }
  }

  /** Stops starting new calls and waits (at most `limitMs`) for the ones under way; resolves whether they all ended. */
  async stop(limitMs: number): Promise<boolean> {
    this.stopped = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), limitMs)));
    const ended = await Promise.race([Promise.all(this.running).then(() => true as const), late]);
    clearTimeout(timer);
    return ended;
  }

  private async plant(transport: Transport, text: string, blocking = false): Promise<string> {
    const { id } = await send(transport, text, { blocking });
    this.planted.push(id);
    return id;
  }

  private async loop(step: () => Promise<unknown>): Promise<void> {
    while (!this.stopped) {
      await step().catch((error: unknown) => this.note(error));
      // Refused calls come back at once while the database is away: a breath between them.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private note(error: unknown): void {
    if (isRetryable(error)) return;
    // A refused transition (the cancel came after the end) or a dropped connection to a replica: not a database fault.
    if (A2AError.is(error) && (error.kind === 'TaskNotCancelable' || error.kind === 'UnsupportedOperation')) return;
    this.unexpected.push(String(error));
  }

  /** Follows task `id` to its end on `transport`, resuming after the last event seen whenever the stream drops. */
  private async follow(transport: () => Transport, id: string): Promise<void> {
    const seen = new Map<number, string>();
    this.seen.set(id, seen);
    let after: number | undefined;
    for (let attempt = 0; attempt < 200 && !this.stopped; attempt++) {
      try {
        for await (const event of transport().stream('SubscribeToTask', { id, ...(after !== undefined && { afterSequence: after }) })) {
          if (!('task' in event.response)) seen.set(event.sequence, fingerprint(event.response));
          after = event.sequence;
          const state = stateOf(event.response);
          if (state !== undefined && isTerminal(state)) return;
        }
        return;
      } catch (error) {
        if (A2AError.is(error) && (error.kind === 'UnsupportedOperation' || error.kind === 'TaskNotFound')) return;
        if (A2AError.is(error) && error.metadata.cause === 'after-sequence-beyond-log') {
          this.beyondLog++;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
}

/** The stored log of each of `ids` (sequence to fingerprint), read from the database at `url`, and its task's state (missing: not stored). */
export async function storedLogs(url: string, schema: string, ids: readonly string[]): Promise<Map<string, { state: string; log: Map<number, string> }>> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const S = `"${schema}"`;
    const stored = new Map<string, { state: string; log: Map<number, string> }>();
    const tasks = await pool.query<{ id: string; state: string }>(`SELECT id, state FROM ${S}.tasks WHERE id = ANY($1::text[])`, [ids]);
    for (const { id, state } of tasks.rows) {
      const { rows } = await pool.query<{ sequence: string; event: string }>(`SELECT sequence, event FROM ${S}.task_events WHERE task_id = $1`, [id]);
      stored.set(id, { state, log: new Map(rows.map((r) => [Number(r.sequence), fingerprint(JSON.parse(r.event) as StreamResponse)])) });
    }
    return stored;
  } finally {
    await pool.end();
  }
}

/**
 * How many events clients received that the store does not hold at the same
 * sequence (lost), and what it holds instead where it has another event
 * there (`replacedBy`, with a line each in `samples`).
 */
export function lostEvents(load: FailoverLoad, stored: Map<string, { log: Map<number, string> }>): { lost: number; replacedBy: string[]; samples: string[] } {
  let lost = 0;
  const replacedBy: string[] = [];
  const samples: string[] = [];
  for (const [id, seen] of load.seen) {
    const log = stored.get(id)?.log;
    for (const [sequence, print] of seen) {
      const kept = log?.get(sequence);
      if (kept === undefined) lost++;
      else if (kept !== print) {
        replacedBy.push(kept);
        samples.push(`${id} #${sequence}: seen "${print}", stored "${kept}"; stored log ${JSON.stringify([...log!.entries()].sort((a, b) => a[0] - b[0]))}`);
      }
    }
  }
  return { lost, replacedBy, samples };
}
