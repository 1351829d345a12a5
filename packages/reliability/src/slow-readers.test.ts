import { viewOf } from '@taskwire/client';
import type { Task } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReaderKit } from './slow/reader-kits.js';
import { readerKit } from './slow/reader-kits.js';
import { wsSharedReader } from './slow/raw-readers.js';
import type { AgentProcess, AgentUrls, HeapSample } from './support/agent-process.js';
import { spawnAgent } from './support/agent-process.js';
import type { NumberedEvent } from './support/lifecycle-check.js';
import { logProblems } from './support/lifecycle-check.js';
import type { Binding } from './support/transports.js';
import { BINDINGS, connectTransport } from './support/transports.js';

/** Rounds of the `slow` task: two events each (a progress update and an artifact chunk), about 700 KB of stream in all. */
const ROUNDS = 2_400;
const STALLED = 6;
const VANISHING = 4;
/**
 * What one stalled SSE or gRPC subscriber may cost the server: the
 * service's subscription holds at most 256 events (past that it re-reads
 * the store when the reader catches up), the SSE writer holds one frame
 * beyond the socket's 16 KiB high-water mark, the gRPC writer waits for
 * `drain` and HTTP/2 flow control holds the rest back (64 KiB windows).
 * 256 events are well under 512 KiB as objects, with room for allocation
 * noise. A server that buffered a stalled reader's backlog would hold the
 * rest of the stream for it: about 1.2 MB here, less what the kernel's
 * socket buffers take (over HTTP/2 only a 64 KiB window; over HTTP/1.1 on
 * loopback up to ~4 MB, so for SSE this bound is met either way).
 */
const STALLED_READER_BYTES = 512 * 1024;
/**
 * The WebSocket binding (tRPC's adapter) does not wait for a slow socket:
 * each stalled connection may hold the stream's frames, up to its
 * `maxBufferedBytes` (8 MiB) before it is dropped. This stream is far
 * below that, so the bound per stalled reader is the stream itself.
 */
const WS_STALLED_READER_BYTES = 1.5 * 1024 * 1024;
/** What subscribers may leave behind once they are gone (GC noise), besides what the store keeps of the task. */
const LEFTOVER_BYTES = 3 * 1024 * 1024;
/**
 * What the memory store may keep of one finished task of ROUNDS rounds: the
 * task itself (its 2,400-chunk artifact) and its newest 1,000 events (the
 * default retention). Keeping every event, as it did before the bound, took
 * about 2.6 MiB per such task (measured in process), and grew with the stream.
 */
const STORE_KEEPS_BYTES = 1.5 * 1024 * 1024;
/** Tasks streamed to one stalled WebSocket connection, so that it falls past 8 MiB (plus what the kernel buffers) behind. */
const OVERFLOW_TASKS = 12;

const used = (h: HeapSample) => h.heapUsed + h.external;
/** The text of a whole `slow` output artifact. */
const OUTPUT = (rounds: number) => Array.from({ length: rounds }, (_, i) => `chunk ${i + 1} of ${rounds}\n`).join('');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

describe('slow and vanishing readers (reference agent, memory store): bounded server memory, no effect on others', () => {
  let agent: AgentProcess;
  let urls: AgentUrls;
  let client: ReturnType<typeof connectTransport>;
  /** What the memory store keeps of one finished task of ROUNDS rounds (measured with one plain subscriber). */
  let perTask = 0;
  const figures: string[] = [];

  /** Starts a `slow` task (rounds `delayMs` apart) without waiting for it. */
  const start = async (rounds: number, delayMs = 0): Promise<Task> => {
    const result = await client.unary('SendMessage', {
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: `slow ${rounds} ${delayMs}` }] },
      configuration: { returnImmediately: true },
    });
    if (!('task' in result)) throw new Error('expected a task');
    return result.task;
  };

  /**
   * The task completed with all its `rounds` chunks, and `events` is its
   * stream, in order, once each; where a reader fell further behind than the
   * store keeps events (1,000 per task), the task as it was then stands in
   * for the events it missed, so what the reader rebuilds is still whole.
   */
  const expectWholeStream = async (taskId: string, rounds: number, events: NumberedEvent[], label: string) => {
    const task = await client.unary('GetTask', { id: taskId });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.find((a) => a.name === 'output')?.parts).toHaveLength(rounds);
    expect(logProblems(events, { finalState: 'TASK_STATE_COMPLETED', snapshots: true }), label).toEqual([]);
    expect(events.length, label).toBeLessThanOrEqual(2 * rounds + 2);
    const rebuilt = viewOf(events).artifacts.find((a) => a.artifact.artifactId === 'output')?.artifact.parts;
    expect(rebuilt?.map((p) => ('text' in p ? p.text : '')).join(''), label).toBe(OUTPUT(rounds));
  };

  beforeAll(async () => {
    agent = spawnAgent({ store: 'memory', probe: true });
    urls = await agent.ready;
    client = connectTransport('JSON-RPC', urls);
    // Run every scenario once first: what a server allocates once (compiled code, pools sized by use) is not growth.
    for (const binding of BINDINGS) {
      const kit = readerKit(binding, urls);
      const run = await scenario(kit, await start(ROUNDS));
      await run.finishStalled();
      await kit.close();
    }
    const before = await agent.heap();
    const control = await start(ROUNDS);
    const kit = readerKit('JSON-RPC', urls);
    await kit.normal(control.id);
    await kit.close();
    perTask = used(await agent.heap()) - used(before);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await agent?.kill();
    if (figures.length) console.log(`slow readers (${ROUNDS} rounds, ${STALLED} stalled and ${VANISHING} vanishing subscribers each):\n  ${figures.join('\n  ')}`);
  });

  /** One normal, STALLED stalled and VANISHING vanishing subscribers of `task`; resolves once the normal one has read it all. */
  const scenario = async (kit: ReaderKit, task: Task) => {
    const normal = kit.normal(task.id);
    const stalled = Array.from({ length: STALLED }, () => kit.stalled(task.id));
    const vanished = Promise.all(Array.from({ length: VANISHING }, (_, i) => kit.vanishing(task.id, 3 + i * 50)));
    await Promise.all(stalled.map((s) => s.started));
    const events = await normal;
    await vanished;
    return { events, finishStalled: () => Promise.all(stalled.map((reader) => reader.finish())) };
  };

  it('the store keeps a bounded part of a long stream: the task and its newest events', () => {
    figures.push(`the memory store keeps ${mib(perTask)} of a finished task of ${2 * ROUNDS + 2} events (bound ${mib(STORE_KEEPS_BYTES)})`);
    expect(perTask).toBeLessThan(STORE_KEEPS_BYTES);
  });

  it.each(BINDINGS)('%s: stalled and vanishing subscribers cost bounded memory; a normal one gets the whole stream; stalled ones catch up', async (binding: Binding) => {
    const kit = readerKit(binding, urls);
    try {
      const before = await agent.heap();
      const task = await start(ROUNDS);
      const { events, finishStalled } = await scenario(kit, task);
      await expectWholeStream(task.id, ROUNDS, events, `the normal ${binding} subscriber`);
      const whileStalled = await agent.heap();
      for (const [i, stream] of (await finishStalled()).entries()) await expectWholeStream(task.id, ROUNDS, stream, `stalled ${binding} subscriber ${i}`);
      await kit.close();
      const afterwards = await agent.heap();
      const held = used(whileStalled) - used(afterwards);
      const bound = STALLED * (binding === 'WebSocket' ? WS_STALLED_READER_BYTES : STALLED_READER_BYTES);
      const leftover = used(afterwards) - used(before) - perTask;
      figures.push(
        `${binding}: ${events.length} events; ${STALLED} stalled readers held ${mib(held)} (bound ${mib(bound)}); ` +
          `left behind ${mib(leftover)} beyond the ${mib(perTask)} the store keeps of the task (bound ${mib(LEFTOVER_BYTES)})`,
      );
      expect(held).toBeLessThan(bound);
      expect(leftover).toBeLessThan(LEFTOVER_BYTES);
      expect(agent.child.exitCode).toBeNull();
    } finally {
      await kit.close();
    }
  }, 90_000);

  it(`WebSocket: a connection that falls more than 8 MiB behind (${OVERFLOW_TASKS} streams on it) is dropped; the tasks and other readers go on`, async () => {
    // Rounds 1 ms apart: the normal readers below subscribe while the tasks still run (a finished task whose first events are gone has no stream to replay).
    const tasks = await Promise.all(Array.from({ length: OVERFLOW_TASKS }, () => start(ROUNDS, 1)));
    // One connection, one subscription per task, none of it read.
    const stalled = wsSharedReader(urls.ws, 'SubscribeToTask', tasks.map((task) => ({ id: task.id, afterSequence: 0 })));
    const kit = readerKit('WebSocket', urls);
    try {
      const normals = tasks.map((task) => kit.normal(task.id));
      await stalled.started;
      stalled.pause();
      for (const [i, task] of tasks.entries()) await expectWholeStream(task.id, ROUNDS, await normals[i]!, 'a normal WebSocket subscriber');
      const heap = await agent.heap();
      stalled.resume();
      const { events, closeCode } = await stalled.done;
      const total = OVERFLOW_TASKS * (2 * ROUNDS + 2);
      figures.push(`WebSocket overflow: one stalled connection with ${OVERFLOW_TASKS} streams (${total} events) was dropped after ${events}; heap+external ${mib(used(heap))} meanwhile`);
      expect(agent.stderr()).toContain('Disconnecting a WebSocket reader that does not keep up');
      expect(closeCode).toBe(1006);
      expect(events).toBeLessThan(total);
      expect(agent.child.exitCode).toBeNull();
    } finally {
      await kit.close();
    }
  }, 120_000);
});
