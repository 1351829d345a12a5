import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { lazyLink } from '../lazy-append.js';
import type { Task } from '../schema/index.js';
import { FileTaskStore } from '../store/file-store.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { useTempDirs } from '../temp-dirs.js';
import { commitOf, streamAppends, testChunk, testTask } from '../testing.js';
import { TaskService } from './task-service.js';

const CHUNKS = 10_000;
const texts = Array.from({ length: CHUNKS }, (_, i) => `${i + 1},`);

/** Streams {@link CHUNKS} chunks appended to artifact `out`, then completes. */
const chunky: Agent = async (ctx) => {
  for (let i = 0; i < CHUNKS; i++) await ctx.artifact({ name: 'out', text: texts[i]! }, { append: i > 0, lastChunk: i === CHUNKS - 1 });
  await ctx.complete('done');
};

const tempDir = useTempDirs('taskwire-long-stream-');
const withDir = async (fn: (dir: string) => Promise<void>) => fn(await tempDir());

/** Streams the agent's task to its end over `service`; resolves the task id after checking every event arrived once, in order. */
async function streamed(service: TaskService): Promise<string> {
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'go' }] };
  const sequences: number[] = [];
  let taskId = '';
  for await (const { sequence, response } of await service.stream('SendStreamingMessage', { message })) {
    sequences.push(sequence);
    if ('task' in response) taskId = response.task.id;
  }
  // The task, every chunk, the completion.
  expect(sequences).toEqual(Array.from({ length: CHUNKS + 2 }, (_, i) => i + 1));
  return taskId;
}

/** The task as GetTask answers it holds one artifact: every chunk's part, in order, the text their concatenation. */
async function expectWhole(service: TaskService, taskId: string): Promise<void> {
  for (const historyLength of [undefined, 0]) {
    const task = (await service.unary('GetTask', { id: taskId, ...(historyLength !== undefined && { historyLength }) })) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    const [artifact] = task.artifacts!;
    expect(artifact!.artifactId).toBe('out');
    expect(artifact!.parts).toEqual(texts.map((text) => ({ text })));
    expect(artifact!.parts.map((part) => ('text' in part ? part.text : '')).join('')).toBe(texts.join(''));
    expect(JSON.parse(JSON.stringify(task)).artifacts[0].parts).toHaveLength(CHUNKS);
    if (historyLength === 0) expect(task.history).toBeUndefined();
    else expect(task.history?.map((m) => m.role)).toEqual(['ROLE_USER']);
  }
}

describe('a stream of 10,000 chunks appended to one artifact', () => {
  it('is one artifact whose text is the concatenation, on the memory store', async () => {
    const store = createMemoryTaskStore();
    const service = new TaskService({ store, agent: chunky });
    await expectWhole(service, await streamed(service));
    await service.close();
  });

  it('is one artifact whose text is the concatenation, on the file store, and after a restart', () =>
    withDir(async (dir) => {
      const store = await FileTaskStore.open(dir, { fsync: false });
      const service = new TaskService({ store, agent: chunky });
      const taskId = await streamed(service);
      await expectWhole(service, taskId);
      await service.close();
      await store.close();
      const reopened = await FileTaskStore.open(dir, { fsync: false });
      const again = new TaskService({ store: reopened, agent: chunky });
      await expectWhole(again, taskId);
      await again.close();
      await reopened.close();
    }));

  it('is committed to the memory store without building the parts before each chunk; the parts read are whole and frozen', async () => {
    const store: TaskStore = createMemoryTaskStore();
    const { task } = await streamAppends(store, CHUNKS);
    const stored = (await store.get(task.id))!.task.artifacts![0]!;
    // No commit read the appended parts: they are still to be built.
    expect(lazyLink(stored)).toBeDefined();
    const parts = stored.parts;
    expect(parts).toEqual(Array.from({ length: CHUNKS }, (_, i) => ({ text: `chunk ${i + 1} ` })));
    expect(Object.isFrozen(parts) && parts.every((part) => Object.isFrozen(part))).toBe(true);
    expect(stored.parts).toBe(parts);
    expect(() => (parts as unknown[]).push({ text: 'more' })).toThrow(TypeError);
  });

  it('grows the file store log by about what the chunks add, not by the artifact so far at each snapshot', () =>
    withDir(async (dir) => {
      const store = await FileTaskStore.open(dir, { fsync: false });
      const { task } = await streamAppends(store, CHUNKS);
      // What the task and its events take as JSON: a log that rewrote the task every 100 events would hold about 50 times that.
      let chars = JSON.stringify(task).length + JSON.stringify({ task: testTask(task.id, { history: 1 }) }).length;
      for (let n = 1; n <= CHUNKS; n++) chars += 2 * JSON.stringify(testChunk(task, n)).length;
      expect(store.stats().appendedBytes).toBeLessThan(4 * chars);
      await store.close();
      const reopened = await FileTaskStore.open(dir, { fsync: false });
      expect((await reopened.get(task.id))!.task).toEqual(task);
      await reopened.close();
    }));
});

it('a commit that only appends still writes the task once it reached the retention bound in events', () =>
  withDir(async (dir) => {
    const store = await FileTaskStore.open(dir, { fsync: false, maxEventsPerTask: 10 });
    const { task, version } = await streamAppends(store, 20);
    await store.commit({ ...commitOf(task, version, []), appendOnly: true });
    const reopened = await (await store.close(), FileTaskStore.open(dir, { fsync: false, maxEventsPerTask: 10 }));
    expect((await reopened.get(task.id))!.task).toEqual(task);
    expect((await reopened.readEvents(task.id, 0)).length).toBeLessThanOrEqual(10);
    await reopened.close();
  }));
