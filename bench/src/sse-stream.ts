import { postForEvents } from './sse-post.js';

/** What one stream saw: its events, and the delays (ms) of its timestamped status updates. */
export interface StreamSeen {
  events: number;
  completed: boolean;
  readonly delays: number[];
}

/**
 * Opens one JSON-RPC SSE stream (`body`, a `SendStreamingMessage`) and reads
 * it to its end, timing each status update's arrival against its
 * timestamp. `onEvent` (optional) hears each event's arrival and says
 * whether its delay counts; `signal` aborts the stream (the promise then
 * rejects).
 */
export function stream(url: string, body: string, seen: StreamSeen, signal?: AbortSignal, onEvent?: () => boolean): Promise<void> {
  return postForEvents(
    url,
    body,
    (data, now) => {
      seen.events++;
      const counted = onEvent?.() ?? true;
      // Only status updates carry a timestamp; parse just that field.
      const stamp = /"timestamp":"([^"]+)"/.exec(data);
      if (counted && stamp && data.includes('statusUpdate')) seen.delays.push(now - Date.parse(stamp[1]!));
      if (data.includes('TASK_STATE_COMPLETED')) seen.completed = true;
    },
    signal,
  );
}
