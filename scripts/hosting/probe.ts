// What every hosting page promises, checked against an app serving a page's
// agent (an echo; asked to "wait", it works until its task is canceled) and
// its health route ({ ok, openStreams }): the card at the site's root lists
// interfaces under the app's prefix; a message gets its answer; a stream's
// first event arrives while the agent is still working (the host does not
// buffer it); the stream is one open stream on the handler until the client
// aborts it, and none after; the task, canceled, ends canceled.
import { expect } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';

/** Polls `read` until it resolves `want`; rejects with the last value after `limitMs`. */
async function until<T>(read: () => Promise<T>, want: T, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let last: T;
  do {
    last = await read();
    if (last === want) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  } while (Date.now() < deadline);
  throw new Error(`still ${JSON.stringify(last)} after ${limitMs} ms, expected ${JSON.stringify(want)}`);
}

/** Reads SSE frames from `body` until one's JSON-RPC result satisfies `done`; resolves with that result. */
async function firstFrame(body: ReadableStream<Uint8Array>, done: (result: Record<string, any>) => boolean): Promise<Record<string, any>> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) throw new Error(`the stream ended before the awaited event; it sent:\n${buffered}`);
    buffered += decoder.decode(value, { stream: true });
    for (const frame of buffered.split('\n\n').slice(0, -1)) {
      const data = frame.split('\n').find((line) => line.startsWith('data:'));
      const result = data === undefined ? undefined : JSON.parse(data.slice(5)).result;
      if (result !== undefined && done(result)) {
        reader.releaseLock();
        return result;
      }
    }
  }
}

/**
 * Checks the app at `base` whose A2A interfaces are below `under` (the
 * site's URL and the prefix the handler is mounted at: `${base}/agent`, or
 * `base` when the handler's own `/a2a/...` paths are the app's).
 */
export async function probeHost(base: string, under: string): Promise<void> {
  const health = async () => ((await (await fetch(`${base}/health`)).json()) as { openStreams: number }).openStreams;
  const client = await createClient(base);
  try {
    const card = client.card!;
    expect(card.supportedInterfaces.map((i) => i.url).sort()).toEqual([`${under}/a2a/jsonrpc`, `${under}/a2a/rest`]);
    const sent = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'ping' }] } });
    expect('task' in sent && sent.task.status.message?.parts[0]).toEqual({ text: 'You said: ping' });

    const abort = new AbortController();
    // The agent works until canceled: its first events can only arrive if the host passes them on as they come.
    const heldBack = setTimeout(() => abort.abort(new Error('no working event within 30 s while the agent works: the host holds the stream back')), 30_000);
    const stream = await fetch(`${under}/a2a/jsonrpc`, {
      method: 'POST',
      signal: abort.signal,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'wait' }] } } }),
    });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const working = await firstFrame(stream.body!, (result) => result.statusUpdate?.status.state === 'TASK_STATE_WORKING').finally(() => clearTimeout(heldBack));
    const taskId = working.statusUpdate.taskId as string;
    expect(await health()).toBe(1);
    abort.abort();
    // Where the runtime tells the handler only when a write fails (workerd), that is at the next heartbeat (15 s).
    await until(health, 0);
    const canceled = await client.cancelTask({ id: taskId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  } finally {
    await client.close();
  }
}
