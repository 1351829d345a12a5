import type { StreamEvent } from '@taskwire/core';
import { isSettled, stateOf } from '@taskwire/core';

/**
 * Passes a stream's events on until one leaves its task terminal or
 * interrupted (input-required, auth-required), that one included, then stops
 * the stream (its `return()` runs, closing the call). For a consumer of
 * SubscribeToTask that cares about one turn of the agent: SubscribeToTask
 * itself follows a task through interrupted states to a terminal one. A
 * message (an agent that answered without a task) ends it too.
 */
export async function* untilSettled(events: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  for await (const event of events) {
    yield event;
    const state = stateOf(event.response);
    if ('message' in event.response || (state !== undefined && isSettled(state))) return;
  }
}
