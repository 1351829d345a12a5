import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@taskwire/client';
import type { Miniflare } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleWorker, startLocalWorker } from '../src/local-worker.js';

const running: Miniflare[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(running.map((mf) => mf.dispose()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** The SSE frames of a response, as `{ id, data }` (comments skipped). */
async function frames(response: Response): Promise<{ id: number; data: any }[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => ({ id: /^id: (\d+)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
    .filter((f) => f.id !== undefined && f.data !== undefined)
    .map((f) => ({ id: Number(f.id), data: JSON.parse(f.data!).result }));
}

const rpc = (url: string, method: string, params: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });

describe('the Workers example: tasks in D1 outlive the isolate', () => {
  it('a stream resumed with Last-Event-ID in a new isolate gets the rest from D1, with no gap and no duplicate', async () => {
    const state = await mkdtemp(join(tmpdir(), 'taskwire-workers-d1-'));
    dirs.push(state);
    const script = await bundleWorker();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;

    const first = await startLocalWorker(script, port, state);
    running.push(first);
    const streamed = await frames(await rpc(url, 'SendStreamingMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'slow 6' }] } }));
    const taskId = streamed[0]!.data.task.id as string;
    expect(streamed.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    await first.dispose();
    running.splice(running.indexOf(first), 1);

    // A new isolate (the old one is gone): it knows the task from D1 alone.
    const second = await startLocalWorker(script, port, state);
    running.push(second);
    const cut = 5;
    const resumed = await frames(await rpc(url, 'SubscribeToTask', { id: taskId }, { 'last-event-id': String(cut) }));
    expect(resumed.map((f) => f.id)).toEqual(streamed.filter((f) => f.id > cut).map((f) => f.id));
    expect(resumed).toEqual(streamed.filter((f) => f.id > cut));

    const client = await createClient(url);
    try {
      const task = await client.getTask({ id: taskId });
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe('chunk 1 chunk 2 chunk 3 chunk 4 chunk 5 chunk 6 ');
      expect((await client.listTasks({})).tasks.map((t) => t.id)).toEqual([taskId]);
    } finally {
      await client.close();
    }
  }, 120_000);
});
