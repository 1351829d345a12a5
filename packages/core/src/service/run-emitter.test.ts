import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Agent, AgentContext } from '../agent/agent.js';
import type { AgentEvent } from '../agent/events.js';
import { artifact, working } from '../agent/events.js';
import type { StreamResponse } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { CommitRequest, TaskStore } from '../store/task-store.js';
import { RunEmitter } from './run-emitter.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

/** A commit waiting in a {@link slowStore}: let go once `due` ticks have passed. */
interface Held {
  readonly due: number;
  readonly go: () => void;
}

/**
 * A memory store whose commits of artifact chunks take `latency` ticks of
 * the agent's clock (the agent calls `tick()` after each delta): a
 * database round trip measured in deltas, no timers. `open()` lets every
 * commit through from then on; `failOn` makes the commits whose text
 * holds it fail; `requests` are the chunks' commits, `landed` their text.
 */
function slowStore(latency: number) {
  const inner = createMemoryTaskStore();
  const held: Held[] = [];
  const requests: CommitRequest[] = [];
  let ticks = 0;
  let open = false;
  /** The artifact text of the commits that have landed, in order. */
  let landed = '';
  const control = {
    requests,
    failOn: undefined as string | undefined,
    get landed() {
      return landed;
    },
    tick() {
      ticks++;
      for (const commit of held.filter((h) => h.due <= ticks)) {
        held.splice(held.indexOf(commit), 1);
        commit.go();
      }
    },
    open() {
      open = true;
      for (const commit of held.splice(0)) commit.go();
    },
  };
  const store: TaskStore = {
    get: (id) => inner.get(id),
    async commit(request) {
      const text = artifactText(request.events);
      // Only the artifact chunks are slow: the task's creation and status updates go through at once.
      if (!request.events.some((e) => 'artifactUpdate' in e)) return inner.commit(request);
      requests.push(request);
      if (!open) await new Promise<void>((go) => held.push({ due: ticks + latency, go }));
      if (control.failOn !== undefined && text.includes(control.failOn)) throw new Error('the disk is full');
      const result = await inner.commit(request);
      landed += text;
      return result;
    },
    list: (query) => inner.list(query),
    delete: (id) => inner.delete(id),
    readEvents: (id, after, limit) => inner.readEvents(id, after, limit),
    close: () => inner.close(),
  };
  return { store, control };
}

/** The text of the artifact updates among `events`, in order. */
function artifactText(events: readonly StreamResponse[]): string {
  let text = '';
  for (const event of events) {
    if (!('artifactUpdate' in event)) continue;
    for (const part of event.artifactUpdate.artifact.parts) if ('text' in part) text += part.text;
  }
  return text;
}

/** Lets the event loop run what is ready (commits let go, their continuations). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const go = { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'go' }] };
const delta = (i: number) => `t${i} `;

/** Emits `count` coalesced deltas of artifact `answer` without awaiting them, one clock tick apart; resolves their promises. */
async function stream(ctx: AgentContext, tick: () => void, count: number, from = 0): Promise<Promise<void>[]> {
  const sent: Promise<void>[] = [];
  for (let i = from; i < from + count; i++) {
    sent.push(ctx.artifact({ name: 'answer', text: delta(i) }, { append: i > 0, coalesce: true }));
    tick();
    await turn();
  }
  return sent;
}

async function run(store: TaskStore, agent: Agent) {
  const service = new TaskService({ store, agent, newTaskWindowMs: 0 });
  const sent = await service.unary('SendMessage', { message: go });
  if (!('task' in sent)) throw new Error('expected a task');
  const log = (await store.readEvents(sent.task.id, 0)).map((e) => e.event);
  await service.close();
  return { task: sent.task, log };
}

describe('coalesced artifact chunks (ArtifactOptions.coalesce)', () => {
  it('500 deltas on a store slow to commit: far fewer commits, the same text, the first delta committed at once, each promise after its text', async () => {
    const { store, control } = slowStore(25);
    const expected = Array.from({ length: 500 }, (_, i) => delta(i)).join('');
    const landedWhenResolved: boolean[] = [];
    const agent: Agent = async (ctx) => {
      const sent = await stream(ctx, () => control.tick(), 500);
      let prefix = '';
      sent.forEach((promise, i) => {
        const through = (prefix += delta(i));
        // A rejection is reported by the Promise.all below; this one only records when each promise resolved.
        promise.then(
          () => (landedWhenResolved[i] = control.landed.startsWith(through)),
          () => undefined,
        );
      });
      control.open();
      await Promise.all(sent);
      await ctx.artifact({ name: 'answer', text: '' }, { append: true, lastChunk: true, coalesce: true });
    };
    const { task, log } = await run(store, agent);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const chunks = log.filter((e) => 'artifactUpdate' in e);
    // One commit per 25 ticks at most while the store is slow (500 without coalescing).
    expect(chunks.length).toBeLessThanOrEqual(500 / 25 + 3);
    expect(artifactText(chunks)).toBe(expected);
    expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe(expected);
    // The first delta went out alone, at once: the store had its commit before the second delta was emitted.
    expect(artifactText(control.requests[0]!.events)).toBe(delta(0));
    expect(landedWhenResolved).toHaveLength(500);
    expect(landedWhenResolved.every(Boolean)).toBe(true);
    const flags = chunks.map((e) => ('artifactUpdate' in e ? [Boolean(e.artifactUpdate.append), Boolean(e.artifactUpdate.lastChunk)] : []));
    expect(flags[0]).toEqual([false, false]);
    expect(flags.slice(1).every(([append]) => append)).toBe(true);
    expect(flags.at(-1)).toEqual([true, true]);
  });

  it('keeps the run\'s other events in order: chunks emitted before a status update are committed before it', async () => {
    const { store, control } = slowStore(3);
    const agent: Agent = async (ctx) => {
      const first = await stream(ctx, () => control.tick(), 5);
      const working = ctx.working('looking something up');
      const second = await stream(ctx, () => control.tick(), 5, 5);
      control.open();
      await Promise.all([...first, working, ...second]);
    };
    const { log } = await run(store, agent);
    const kinds = log.map((e) => ('artifactUpdate' in e ? `a:${artifactText([e])}` : 'statusUpdate' in e ? `s:${e.statusUpdate.status.state}` : 'task'));
    const status = kinds.indexOf('s:TASK_STATE_WORKING');
    expect(artifactText(log.slice(0, status))).toBe([0, 1, 2, 3, 4].map(delta).join(''));
    expect(artifactText(log.slice(status))).toBe([5, 6, 7, 8, 9].map(delta).join(''));
    expect(kinds.filter((k) => k.startsWith('a:')).length).toBeLessThan(10);
  });

  it('a failed commit rejects its chunks, the ones waiting behind it and every later one; a run that ignores it fails its task', async () => {
    const { store, control } = slowStore(2);
    control.failOn = delta(3);
    const outcomes: string[] = [];
    const agent: Agent = async (ctx) => {
      const sent = await stream(ctx, () => control.tick(), 10);
      control.open();
      const settled = await Promise.allSettled(sent);
      outcomes.push(...settled.map((s) => s.status));
      // Later coalesced chunks are refused too: no text after a gap.
      await ctx.artifact({ name: 'answer', text: 'more' }, { append: true, coalesce: true }).catch((error: Error) => outcomes.push(error.message));
    };
    const { task, log } = await run(store, agent);
    const failedAt = outcomes.indexOf('rejected');
    expect(failedAt).toBeGreaterThan(0);
    expect(failedAt).toBeLessThanOrEqual(3);
    expect(outcomes.slice(failedAt, 10).every((o) => o === 'rejected')).toBe(true);
    expect(outcomes[10]).toBe('the disk is full');
    expect(artifactText(log)).toBe([...Array(failedAt).keys()].map(delta).join(''));
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.status.message?.parts).toEqual([{ text: 'The agent failed: the disk is full' }]);
  });

  it('a cancel while chunks wait: they are not committed after it, and later chunks are refused at once', async () => {
    const { store, control } = slowStore(1_000);
    const started = deferred<string>();
    const refused = deferred<unknown>();
    const results: Promise<void>[] = [];
    const agent: Agent = async (ctx) => {
      results.push(...(await stream(ctx, () => undefined, 5)));
      started.resolve(ctx.task.id);
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      await ctx.artifact({ name: 'answer', text: 'late' }, { append: true, coalesce: true }).then(() => refused.resolve('committed'), refused.resolve);
    };
    const service = new TaskService({ store, agent, newTaskWindowMs: 0 });
    const sent = await service.unary('SendMessage', { message: { ...go, messageId: 'm2' }, configuration: { returnImmediately: true } });
    const id = await started.promise;
    const canceled = service.unary('CancelTask', { id });
    control.open();
    expect((await canceled).status.state).toBe('TASK_STATE_CANCELED');
    expect(await refused.promise).toMatchObject({ message: expect.stringMatching(/canceled/) });
    const settled = await Promise.allSettled(results);
    await service.idle();
    const log = (await store.readEvents(id, 0)).map((e) => e.event);
    const cancelAt = log.findIndex((e) => 'statusUpdate' in e && e.statusUpdate.status.state === 'TASK_STATE_CANCELED');
    expect(log.slice(cancelAt + 1)).toEqual([]);
    // What was committed before the cancel is what the resolved promises say.
    const committed = settled.map((s, i) => (s.status === 'fulfilled' ? delta(i) : '')).join('');
    expect(artifactText(log)).toBe(committed);
    expect(settled.some((s) => s.status === 'rejected')).toBe(true);
    expect('task' in sent).toBe(true);
    await service.close();
  });
});

describe('RunEmitter with minIntervalMs', () => {
  afterEach(() => void vi.useRealTimers());

  it('spaces the chunk commits out by the interval (a fake clock), the first at once, none waiting longer; another event sends what waits at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const committed: AgentEvent[] = [];
    const emitter = new RunEmitter(async (event) => void committed.push(event), { aborted: false, reason: undefined });
    const chunk = (text: string, append = true) => emitter.emit(artifact({ name: 'answer', text }, { append, coalesce: { minIntervalMs: 50 } }));
    const texts = () => committed.map((e) => (e.kind === 'artifact' ? artifactText([{ artifactUpdate: { taskId: 't', contextId: 'c', artifact: e.artifact } }]) : e.kind));
    await chunk('a', false);
    expect(texts()).toEqual(['a']);
    const waiting = [chunk('b'), chunk('c')];
    await vi.advanceTimersByTimeAsync(49);
    expect(texts()).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    await Promise.all(waiting);
    expect(texts()).toEqual(['a', 'bc']);
    // A chunk that comes once the interval since the last commit is over takes the waiting ones along, before their own time is up.
    await vi.advanceTimersByTimeAsync(30);
    const early = chunk('x');
    await vi.advanceTimersByTimeAsync(10);
    expect(texts()).toEqual(['a', 'bc']);
    await vi.advanceTimersByTimeAsync(10);
    await Promise.all([early, chunk('y')]);
    expect(texts()).toEqual(['a', 'bc', 'xy']);
    // 50 ms after the last commit started: the next chunk goes at once.
    await vi.advanceTimersByTimeAsync(50);
    await chunk('d');
    expect(texts()).toEqual(['a', 'bc', 'xy', 'd']);
    // A status update does not wait for the interval: what waits goes first, then it.
    const more = chunk('e');
    await emitter.emit(working());
    await more;
    expect(texts()).toEqual(['a', 'bc', 'xy', 'd', 'e', 'status']);
    expect(await emitter.drain()).toBeUndefined();
  });
});
