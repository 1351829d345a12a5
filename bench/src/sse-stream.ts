import { request } from 'node:http';
import { REQUEST_HEADERS } from './http-load.js';

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
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { ...REQUEST_HEADERS, accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) }, ...(signal && { signal }) },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          const now = Date.now();
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split('\n').find((line) => line.startsWith('data:'));
            if (data === undefined) continue;
            seen.events++;
            const counted = onEvent?.() ?? true;
            // Only status updates carry a timestamp; parse just that field.
            const stamp = /"timestamp":"([^"]+)"/.exec(data);
            if (counted && stamp && data.includes('statusUpdate')) seen.delays.push(now - Date.parse(stamp[1]!));
            if (data.includes('TASK_STATE_COMPLETED')) seen.completed = true;
          }
        });
        res.on('end', resolve);
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
