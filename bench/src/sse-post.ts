import { request } from 'node:http';
import { REQUEST_HEADERS } from './http-load.js';

/**
 * POSTs the JSON-RPC `body` to `url` for an SSE stream and calls
 * `onData(data, now)` with the `data:` payload of each event (the prefix
 * taken off), `now` being when its bytes arrived (ms since the epoch, with
 * a fraction). Resolves when the stream ends; rejects on a status other
 * than 200, a network error, an abort of `signal`, or a throw of `onData`
 * (the request is then dropped).
 */
export function postForEvents(url: string, body: string, onData: (data: string, now: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { ...REQUEST_HEADERS, accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) };
    const req = request(url, { method: 'POST', headers, ...(signal && { signal }) }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk: string) => {
        const now = performance.timeOrigin + performance.now();
        buffer += chunk;
        try {
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const line = buffer.slice(0, end).split('\n').find((l) => l.startsWith('data:'));
            buffer = buffer.slice(end + 2);
            if (line !== undefined) onData(line.slice(5), now);
          }
        } catch (error) {
          req.destroy();
          reject(error);
        }
      });
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
