import type { StreamResponse, TaskStore } from '@taskwire/core';
import { createMemoryTaskStore } from '@taskwire/core';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aAgent } from './a2a-agent.js';
import type { Chunk, Served } from './test-kit.js';
import { finish, serve, testCard, userMessage } from './test-kit.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** The text of the artifact updates among `events`. */
const textOf = (events: readonly StreamResponse[]) =>
  events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts.map((p) => ('text' in p ? p.text : '')) : [])).join('');

/**
 * A model streaming `deltas` on its own schedule (one per event-loop turn,
 * whether or not anyone reads them, as a provider's socket would), and a
 * memory store whose commits of artifact chunks land only once the model
 * has made `latency` more deltas (all of them once it is done): a
 * database that is slow next to the token rate, with no timers. The
 * `failAt`-th chunk commit (from 1), if given, fails.
 */
function slowSetup(deltas: readonly string[], latency: number, failAt?: number) {
  const inner = createMemoryTaskStore();
  const held: { due: number; go: () => void }[] = [];
  const chunkCommits: StreamResponse[][] = [];
  let made = 0;
  let done = false;
  const tick = () => {
    made++;
    for (const commit of held.filter((h) => done || h.due <= made)) {
      held.splice(held.indexOf(commit), 1);
      commit.go();
    }
  };
  const store: TaskStore = {
    get: (id) => inner.get(id),
    async commit(request) {
      if (request.events.some((e) => 'artifactUpdate' in e)) {
        chunkCommits.push([...request.events]);
        if (!done) await new Promise<void>((go) => held.push({ due: made + latency, go }));
        if (chunkCommits.length === failAt) throw new Error('the disk is full');
      }
      return inner.commit(request);
    },
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  const model = new MockLanguageModelV4({
    modelId: 'mock-model',
    doStream: async () => ({
      stream: new ReadableStream<Chunk>({
        async start(controller) {
          controller.enqueue({ type: 'text-start', id: 't' });
          for (const delta of deltas) {
            controller.enqueue({ type: 'text-delta', id: 't', delta });
            tick();
            await new Promise((resolve) => setImmediate(resolve));
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue(finish());
          controller.close();
          done = true;
          tick();
        },
      }) as never,
    }),
  });
  return { store, model, chunkCommits };
}

describe('a2aAgent coalesces the text deltas of a turn (by default)', () => {
  it('500 deltas on a slow store: far fewer commits, the first delta at once, and a streaming client over HTTP reads the same text', async () => {
    const deltas = Array.from({ length: 500 }, (_, i) => `w${i} `);
    const expected = deltas.join('');
    const { store, model, chunkCommits } = slowSetup(deltas, 25);
    served = await serve(a2aAgent({ model }), testCard('ai'), { store });
    const client = await served.client('JSONRPC');
    const events: StreamResponse[] = [];
    for await (const event of client.stream('SendStreamingMessage', { message: userMessage('talk') })) events.push(event.response);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    // One commit per 25 deltas at most while the store is slow (500 without coalescing).
    expect(chunkCommits.length).toBeLessThanOrEqual(500 / 25 + 3);
    expect(textOf(chunkCommits[0]!)).toBe(deltas[0]);
    // The subscriber, appending the chunks it was sent, has the whole answer; so has the stored task.
    const chunks = events.filter((e) => 'artifactUpdate' in e);
    expect(chunks.length).toBe(chunkCommits.length);
    expect(textOf(chunks)).toBe(expected);
    expect('statusUpdate' in last && last.statusUpdate.status.message?.parts).toEqual([{ text: expected }]);
    const task = await client.getTask({ id: 'statusUpdate' in last ? last.statusUpdate.taskId : '' });
    expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe(expected);
    const lastChunk = chunks.at(-1)!;
    expect('artifactUpdate' in lastChunk && lastChunk.artifactUpdate.lastChunk).toBe(true);
  });

  it('a chunk whose commit fails ends the turn: the task fails saying why, and its artifact has no gap', async () => {
    const deltas = Array.from({ length: 200 }, (_, i) => `w${i} `);
    const { store, model, chunkCommits } = slowSetup(deltas, 5, 2);
    served = await serve(a2aAgent({ model }), testCard('ai'), { store });
    const client = await served.client('JSONRPC');
    const events: StreamResponse[] = [];
    for await (const event of client.stream('SendStreamingMessage', { message: userMessage('talk') })) events.push(event.response);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_FAILED');
    expect('statusUpdate' in last && last.statusUpdate.status.message?.parts).toEqual([{ text: 'The agent failed: the disk is full' }]);
    // The first delta, committed before the failure, and nothing after it.
    expect(textOf(events)).toBe(deltas[0]);
    expect(chunkCommits.length).toBe(2);
  });
});
