import type { CallContext, StreamEvent } from '../calls.js';
import type { ExtensionActivation } from '../extensions.js';
import type { Task } from '../schema/index.js';
import type { TaskEngine } from './task-engine.js';
import type { Started } from './task-intake.js';
import { answered, followTask } from './task-stream.js';

/**
 * Starts the run of a SendStreamingMessage that `started`, and resolves its
 * stream: a held-back task (stored with the agent's first event) is followed
 * from its creation, or answered with the agent's message when it replied
 * without a task (its creation's failure rejects); a continued task from its
 * current event, once the agent's activated extensions are known (its first
 * event) or `windowMs` passed. The stream ends at the turn's end (terminal or
 * interrupted); `snapshot` projects its tasks.
 */
export async function openSendStream(
  engine: TaskEngine,
  started: Started,
  snapshot: (task: Task) => Task,
  context: CallContext,
  windowMs: number,
): Promise<AsyncIterable<StreamEvent>> {
  const { record } = started;
  const taskId = record.task.id;
  const heldBack = record.version === 0;
  const subscription = engine.hub.subscribe(taskId, heldBack ? 1 : record.lastSequence);
  subscription.turn = true;
  const created = heldBack ? engine.newTasks.whenCreated(taskId) : undefined;
  started.run();
  if (created) {
    let outcome;
    try {
      outcome = await created;
    } catch (error) {
      engine.hub.unsubscribe(subscription);
      throw error;
    }
    if (outcome.message) {
      engine.hub.unsubscribe(subscription);
      return answered(outcome.message);
    }
  }
  if (!heldBack && context.activation?.requested.length) await extensionsDecided(context.activation, windowMs);
  const sequence = heldBack ? 1 : record.lastSequence;
  const head = [{ sequence, response: { task: snapshot(record.task) } }];
  return followTask(engine, subscription, { head, until: 'turn', replayUntil: sequence, snapshot, signal: context.signal });
}

/** Resolves once `activation` is sealed (the agent's first event) or `windowMs` passed. */
async function extensionsDecided(activation: ExtensionActivation, windowMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const window = new Promise<void>((resolve) => (timer = setTimeout(resolve, windowMs)));
  await Promise.race([activation.whenSealed(), window]).finally(() => clearTimeout(timer));
}
