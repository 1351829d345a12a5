import type { Task, TaskState } from '@taskwire/core';
import { isInterrupted } from '@taskwire/core';

/** What the client was told about one task before a crash: every acknowledged user message and the last state it saw. */
export interface AckedTask {
  readonly taskId: string;
  /** The user messages whose send or continuation was answered, in order. */
  readonly messages: string[];
  /** The state the last answer reported. */
  state: TaskState;
  /** A stream of this task was cut by the kill after delivering this sequence number: resume after it. */
  cutAt?: number | undefined;
  /** A worker is continuing it right now (so two workers do not race for one turn). */
  busy?: boolean;
}

/**
 * The acknowledged sends of a crash test, across rounds: the promise under
 * test is that every one of them survives any kill with its full history.
 */
export class AckLog {
  readonly tasks = new Map<string, AckedTask>();
  /** Acknowledged sends and continuations, over all rounds. */
  sends = 0;

  /** Records that the send of `messageId` was answered with `task` (a new task or a continuation). */
  ack(task: Pick<Task, 'id' | 'status'>, messageId: string): AckedTask {
    let acked = this.tasks.get(task.id);
    if (!acked) this.tasks.set(task.id, (acked = { taskId: task.id, messages: [], state: task.status.state }));
    if (!acked.messages.includes(messageId)) {
      acked.messages.push(messageId);
      this.sends++;
    }
    acked.state = task.status.state;
    return acked;
  }

  /** An acknowledged task waiting for its next message that no worker holds, marked busy; undefined when there is none. */
  claimInterrupted(pick: <T>(items: readonly T[]) => T): AckedTask | undefined {
    const free = [...this.tasks.values()].filter((t) => isInterrupted(t.state) && !t.busy);
    if (free.length === 0) return undefined;
    const task = pick(free);
    task.busy = true;
    return task;
  }

  /** Streams cut by the last kill, to resume. */
  cut(): AckedTask[] {
    return [...this.tasks.values()].filter((t) => t.cutAt !== undefined);
  }
}
