import type { Message, SendMessageRequest, Task } from '@taskwire/core';
import { isTerminal, stateOf } from '@taskwire/core';
import type { Random } from '../support/random.js';
import type { Binding, TransportSet } from '../support/transports.js';
import { BINDINGS } from '../support/transports.js';
import type { AckLog } from './acked.js';

/** What one round of load did before the kill. */
export interface LoadReport {
  readonly calls: number;
  /** Calls that failed while the server was still up (each one is a defect). */
  readonly failures: string[];
}

type Action = 'echo' | 'quote' | 'auth' | 'continue' | 'stream' | 'immediate' | 'end';
const ACTIONS: readonly Action[] = ['echo', 'echo', 'quote', 'auth', 'continue', 'continue', 'stream', 'stream', 'immediate', 'end'];

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

/** When load stops: `killed` aborts as the kill is sent (failures after it are expected), `stop` once the server is gone (ends every call). */
export interface LoadSignals {
  readonly killed: AbortSignal;
  readonly stop: AbortSignal;
}

/**
 * Drives the reference agent from this process until it is killed:
 * `workers` loops each pick an action (a send, a quote or auth turn, a
 * continuation of an interrupted task, a streamed `slow` task, a
 * fire-and-forget send, a failing task) and a binding at random. Every
 * answer that arrives is recorded in `acked` as it arrives; a stream
 * records the last sequence it delivered, so that a stream cut by the kill
 * can be resumed after the restart.
 */
export async function runLoad(transports: TransportSet, acked: AckLog, random: Random, workers: number, signals: LoadSignals): Promise<LoadReport> {
  const signal = signals.stop;
  let calls = 0;
  const failures: string[] = [];

  const send = async (binding: Binding, request: SendMessageRequest): Promise<Task> => {
    calls++;
    const result = await transports.get(binding).unary('SendMessage', request, { signal });
    if (!('task' in result)) throw new Error(`SendMessage answered a message, not a task: ${JSON.stringify(result)}`);
    acked.ack(result.task, request.message.messageId);
    return result.task;
  };

  const stream = async (binding: Binding, text: string) => {
    calls++;
    const sent = message(text);
    let taskId: string | undefined;
    for await (const event of transports.get(binding).stream('SendStreamingMessage', { message: sent }, { signal })) {
      const response = event.response;
      if ('task' in response && !taskId) {
        taskId = response.task.id;
        acked.ack(response.task, sent.messageId);
      }
      const task = taskId === undefined ? undefined : acked.tasks.get(taskId);
      if (!task) continue;
      task.cutAt = event.sequence;
      task.state = stateOf(response) ?? task.state;
    }
    // The stream ended normally: nothing to resume.
    const task = taskId === undefined ? undefined : acked.tasks.get(taskId);
    if (task) task.cutAt = undefined;
  };

  const act = async (action: Action, binding: Binding, choose: Random) => {
    switch (action) {
      case 'echo':
        return void (await send(binding, { message: message(`echo ${choose.string(8, 'abcdefgh')}`) }));
      case 'quote':
        return void (await send(binding, { message: message('write me a sunset quote') }));
      case 'auth':
        return void (await send(binding, { message: message('auth') }));
      case 'end':
        return void (await send(binding, { message: message(choose.pick(['fail', 'reject'])) }));
      case 'immediate':
        return void (await send(binding, { message: message('slow 4 40'), configuration: { returnImmediately: true } }));
      case 'stream':
        return stream(binding, 'slow 6 25');
      case 'continue': {
        const task = acked.claimInterrupted((items) => choose.pick(items));
        if (!task) return void (await send(binding, { message: message('write me a sunset quote') }));
        try {
          const answer = task.state === 'TASK_STATE_INPUT_REQUIRED' ? choose.pick(['insta', 'pinterest', 'general', 'hmm']) : 'here you go';
          await send(binding, { message: message(answer, { taskId: task.taskId }) });
        } finally {
          task.busy = false;
        }
      }
    }
  };

  const worker = async (choose: Random) => {
    while (!signals.killed.aborted) {
      const action = choose.pick(ACTIONS);
      const binding = choose.pick(BINDINGS);
      try {
        await act(action, binding, choose);
      } catch (error) {
        if (signals.killed.aborted) return;
        failures.push(`${action} over ${binding}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  await Promise.all(Array.from({ length: workers }, () => worker(random.fork())));
  for (const task of acked.tasks.values()) {
    task.busy = false;
    // A stream that delivered its terminal event has nothing left to resume, even if the kill cut it just after.
    if (isTerminal(task.state)) task.cutAt = undefined;
  }
  return { calls, failures };
}
