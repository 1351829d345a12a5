import type { CallOptions, Message, StreamEvent, Task, TaskState } from '@taskwire/core';
import { A2AError, stateOf } from '@taskwire/core';
import type { Random } from '@taskwire/reliability/support/random';
import type { Binding } from '@taskwire/reliability/support/transports';
import { BINDINGS } from '@taskwire/reliability/support/transports';
import type { Cluster } from './cluster.js';

/** A message a replica acknowledged: the task it went to, and the replica that answered (and runs the agent). */
export interface Ack {
  readonly taskId: string;
  readonly messageId: string;
  readonly replica: number;
}

/** A SubscribeToTask that followed a task on one replica. */
export interface Follow {
  readonly taskId: string;
  readonly replica: number;
  readonly started: number;
  ended: number;
  /** The state of the last event it got (a terminal one when it saw the end). */
  last: TaskState | undefined;
  error: string | undefined;
  /** The task had already ended when the subscription was made (UnsupportedOperation): there was nothing to follow. */
  late: boolean;
}

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

/**
 * Load on a cluster while replicas are killed and restarted: workers send
 * blocking echoes, quote turns continued on another replica, and slow tasks
 * each followed by a subscriber on another replica, over random bindings,
 * to replicas that are up. Calls that fail (a replica dies under them) are
 * not acknowledged; every answer that arrives is.
 */
export class ChaosLoad {
  readonly acks: Ack[] = [];
  readonly follows: Follow[] = [];
  private readonly stopping = new AbortController();
  private readonly running: Promise<void>[] = [];
  private readonly following = new Set<Promise<void>>();

  constructor(
    private readonly cluster: Cluster,
    private readonly random: Random,
  ) {}

  /** Starts `workers` loops. */
  start(workers: number): void {
    for (let w = 0; w < workers; w++) this.running.push(this.work(this.random.fork()));
  }

  /** Stops the loops and waits for them and for every subscriber to end. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.running);
    while (this.following.size > 0) await Promise.all([...this.following]);
  }

  private options(): CallOptions {
    return { signal: this.stopping.signal, timeoutMs: 20_000 };
  }

  private pick(random: Random, not?: number): number | undefined {
    const up = this.cluster.replicas.filter((r) => r.up && r.index !== not);
    return up.length === 0 ? undefined : random.pick(up).index;
  }

  private async send(binding: Binding, replica: number, text: string, extra: Partial<Message> = {}, returnImmediately = false): Promise<Task> {
    const sent = message(text, extra);
    const transport = this.cluster.transport(binding, replica);
    const result = await transport.unary('SendMessage', { message: sent, configuration: { returnImmediately } }, this.options());
    if (!('task' in result)) throw new Error('expected a task');
    this.acks.push({ taskId: result.task.id, messageId: sent.messageId, replica });
    return result.task;
  }

  private async work(random: Random): Promise<void> {
    while (!this.stopping.signal.aborted) {
      const binding = random.pick(BINDINGS);
      const replica = this.pick(random);
      const other = replica === undefined ? undefined : this.pick(random, replica);
      if (replica === undefined || other === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      try {
        const action = random.pick(['echo', 'quote', 'slow', 'slow'] as const);
        if (action === 'echo') await this.send(binding, replica, 'echo chaos');
        else if (action === 'quote') {
          const asked = await this.send(binding, replica, 'quote');
          await this.send(random.pick(BINDINGS), other, 'general', { taskId: asked.id });
        } else {
          const task = await this.send(binding, replica, `slow ${random.int(5, 25)} 40`, {}, true);
          void this.follow(random.pick(BINDINGS), other, task.id);
        }
      } catch {
        // A replica died under the call (or the load is stopping): nothing was acknowledged.
      }
    }
  }

  /**
   * Starts a long task on `victim` (about to be killed) and a subscriber on
   * another replica that is up; resolves the task's id once the subscriber
   * follows it (has its first event).
   */
  async plant(victim: number): Promise<string> {
    const random = this.random.fork();
    const task = await this.send(random.pick(BINDINGS), victim, 'slow 500 40', {}, true);
    const other = this.pick(random, victim);
    if (other === undefined) throw new Error('no other replica is up to follow the planted task');
    await this.follow(random.pick(BINDINGS), other, task.id);
    return task.id;
  }

  /** Follows `taskId` on `replica` to its end, recording what it saw; resolves once it has its first event (or ended). */
  private follow(binding: Binding, replica: number, taskId: string): Promise<void> {
    const record: Follow = { taskId, replica, started: Date.now(), ended: 0, last: undefined, error: undefined, late: false };
    this.follows.push(record);
    let following!: () => void;
    const first = new Promise<void>((resolve) => (following = resolve));
    const done = (async () => {
      try {
        const events: AsyncIterable<StreamEvent> = this.cluster.transport(binding, replica).stream('SubscribeToTask', { id: taskId }, { timeoutMs: 60_000 });
        for await (const event of events) {
          record.last = stateOf(event.response) ?? record.last;
          following();
        }
      } catch (error) {
        if (record.last === undefined && A2AError.is(error) && error.kind === 'UnsupportedOperation') record.late = true;
        else record.error = String(error);
      } finally {
        record.ended = Date.now();
        following();
      }
    })();
    this.following.add(done);
    void done.then(() => this.following.delete(done));
    return first;
  }
}
