import type { CheckClient } from './answer-shapes.js';
import type { SendMessageRequest, StreamEvent } from '@taskwire/core';
import { A2AError, stateOf } from '@taskwire/core';

/** A user message with `text`, as SendMessage params. */
export const userMessage = (text: string): SendMessageRequest => ({
  message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
});

/** One event in a line of evidence: `#sequence kind state`. */
export const describe = (event: StreamEvent) => {
  const state = stateOf(event.response);
  return `#${event.sequence} ${Object.keys(event.response)[0]}${state ? ` ${state}` : ''}`;
};

/** The task an event belongs to. */
export const taskIdOf = (event: StreamEvent): string | undefined => {
  const r = event.response;
  return 'task' in r ? r.task.id : 'statusUpdate' in r ? r.statusUpdate.taskId : 'artifactUpdate' in r ? r.artifactUpdate.taskId : r.message.taskId;
};

/** An error in a line of evidence, with its A2A kind and code when it has them. */
export const errorText = (error: unknown) => (A2AError.is(error) ? `${error.kind} (${error.code}): ${error.message}` : String((error as Error)?.message ?? error));

/** Reads a stream to its end, keeping every event. */
export async function drain(events: AsyncIterable<StreamEvent>, into: StreamEvent[]): Promise<void> {
  for await (const event of events) into.push(event);
}

/**
 * Opens a stream of `text` and reads it until it has named its task and
 * brought `minEvents` events. With `follow` (the default) the stream then
 * goes on into `events` until `rest` settles; without, it is closed (as a
 * dropped connection would be) and `rest` is settled.
 */
export async function startSlow(client: CheckClient, text: string, signal: AbortSignal, minEvents = 1, follow = true) {
  const events: StreamEvent[] = [];
  const iterator = client.sendStreamingMessage(userMessage(text), { signal, resume: false })[Symbol.asyncIterator]();
  let taskId: string | undefined;
  while (taskId === undefined || events.length < minEvents) {
    const next = await iterator.next();
    if (next.done) break;
    events.push(next.value);
    if (taskId === undefined && !('message' in next.value.response)) taskId = taskIdOf(next.value);
  }
  if (!follow) {
    await iterator.return?.();
    return { taskId, events, rest: Promise.resolve() };
  }
  const rest = drain({ [Symbol.asyncIterator]: () => iterator }, events);
  rest.catch(() => undefined);
  return { taskId, events, rest };
}
