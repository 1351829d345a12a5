/**
 * Seed 002: the kagent UI reads `message/stream` SSE events, takes
 * `eventData.result || eventData` as the payload and routes it by `kind`:
 * "task" (replace the conversation when it has history), "status-update"
 * (append; finalize on `final`), "artifact-update" (append), "message"
 * (append); anything else is "other". `isTaskLike` (history + id/contextId
 * without `kind`) is its fallback for servers that drop `kind`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SseEvent } from './seeds-fixture.js';
import { firstText, SeedServer, v03UserMessage } from './seeds-fixture.js';

type Payload = Record<string, any>;

/** messageUtils of ui/src/lib/utils.ts. */
const messageUtils = {
  isA2ATask: (m: Payload) => m.kind === 'task',
  isTaskLike: (m: Payload) => Array.isArray(m.history) && m.history.length > 0 && (typeof m.id === 'string' || typeof m.contextId === 'string'),
  isA2ATaskStatusUpdate: (m: Payload) => m.kind === 'status-update',
  isA2ATaskArtifactUpdate: (m: Payload) => m.kind === 'artifact-update',
  isA2AMessage: (m: Payload) => m.kind === 'message',
};

type Route = 'task' | 'status-update' | 'artifact-update' | 'message' | 'other';

/** handleMessageEvent of ui/src/lib/messageHandlers.ts, reduced to what it shows. */
class KagentView {
  stored: [string, string | undefined][] = [];
  streaming: [string, string | undefined][] = [];
  routes: Route[] = [];
  finalized = false;

  handle(event: SseEvent): void {
    const eventData = event.data;
    const message = (eventData.result || eventData) as Payload;
    if (messageUtils.isA2ATask(message) || messageUtils.isTaskLike(message)) {
      this.routes.push('task');
      if (message.history?.length > 0) {
        this.stored = message.history.map((m: Payload) => [m.role, firstText(m)]);
        this.streaming = [];
      }
    } else if (messageUtils.isA2ATaskStatusUpdate(message)) {
      this.routes.push('status-update');
      if (message.status.message) this.streaming.push([message.status.message.role, firstText(message.status.message)]);
      if (message.final) this.finalized = true;
    } else if (messageUtils.isA2ATaskArtifactUpdate(message)) {
      this.routes.push('artifact-update');
      this.streaming.push(['artifact', firstText(message.artifact)]);
    } else if (messageUtils.isA2AMessage(message)) {
      this.routes.push('message');
      this.streaming.push([message.role, firstText(message)]);
    } else {
      this.routes.push('other');
    }
  }

  get conversation(): [string, string | undefined][] {
    return [...this.stored, ...this.streaming];
  }
}

describe('seed 002: a UI routing v0.3 SSE events by kind', () => {
  let server: SeedServer;
  beforeEach(async () => {
    server = await SeedServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('message/stream: a task, then status/artifact updates in order, final only on the last; every event is routed by kind', async () => {
    const { status, contentType, events } = await server.stream('message/stream', { message: v03UserMessage('slow 3 0') }, {}, 'req-1');
    expect(status).toBe(200);
    expect(contentType).toMatch(/^text\/event-stream/);
    const view = new KagentView();
    for (const event of events) view.handle(event);

    expect(view.routes).toEqual([
      'task',
      ...Array<Route[]>(3).fill(['status-update', 'artifact-update']).flat(),
      'status-update',
    ]);
    expect(view.routes).not.toContain('other');
    expect(view.finalized).toBe(true);

    const results = events.map((e) => e.data.result as Payload);
    expect(events.every((e) => e.data.jsonrpc === '2.0' && e.data.id === 'req-1')).toBe(true);
    const task = results[0]!;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'submitted' } });
    expect(task.history).toEqual([expect.objectContaining({ kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'slow 3 0' }] })]);
    for (const r of results.slice(1)) {
      expect(r.taskId).toBe(task.id);
      expect(r.contextId).toBe(task.contextId);
    }
    const updates = results.filter((r) => r.kind === 'status-update');
    expect(updates.map((u) => [u.status.state, u.final])).toEqual([
      ['working', false],
      ['working', false],
      ['working', false],
      ['completed', true],
    ]);
    expect(updates.slice(0, 3).map((u) => u.metadata.progress)).toEqual([1, 2, 3].map((current) => ({ current, total: 3 })));
    const chunks = results.filter((r) => r.kind === 'artifact-update');
    expect(chunks.map((c) => [c.artifact.artifactId, c.artifact.parts[0].kind, c.append, c.lastChunk])).toEqual([
      ['output', 'text', false, false],
      ['output', 'text', true, false],
      ['output', 'text', true, true],
    ]);

    expect(view.conversation).toEqual([
      ['user', 'slow 3 0'],
      ['artifact', 'chunk 1 of 3\n'],
      ['artifact', 'chunk 2 of 3\n'],
      ['artifact', 'chunk 3 of 3\n'],
      ['agent', 'Done: 3 chunks.'],
    ]);
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('an input-required turn ends the stream with a final status-update carrying the question; the answer on the same task streams on', async () => {
    const first = await server.stream('message/stream', { message: v03UserMessage('a sunset quote please') });
    const view = new KagentView();
    for (const event of first.events) view.handle(event);
    const last = first.events.at(-1)!.data.result as Payload;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required', message: { kind: 'message', role: 'agent' } } });
    expect(view.conversation.at(-1)).toEqual(['agent', 'Do you want Instagram, Pinterest, or General?']);

    const taskId = (first.events[0]!.data.result as Payload).id as string;
    const second = await server.stream('message/stream', { message: v03UserMessage('pinterest', { taskId }) });
    const results = second.events.map((e) => e.data.result as Payload);
    expect(results[0]).toMatchObject({ kind: 'task', id: taskId });
    // The continued task's snapshot carries the whole history: the UI replaces the conversation with it.
    const resumed = new KagentView();
    for (const event of second.events) resumed.handle(event);
    expect(resumed.conversation.slice(0, 3)).toEqual([
      ['user', 'a sunset quote please'],
      ['agent', 'Do you want Instagram, Pinterest, or General?'],
      ['user', 'pinterest'],
    ]);
    expect(results.some((r) => r.kind === 'artifact-update' && r.artifact.name === 'quote')).toBe(true);
    expect(results.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    expect(resumed.routes).not.toContain('other');
  });

  it('tasks/resubscribe to a running task: the current task first (kind "task"), then its updates to the final one', async () => {
    const started = await server.result('message/send', { message: v03UserMessage('slow 4 10'), configuration: { blocking: false } });
    const { events } = await server.stream('tasks/resubscribe', { id: started.id });
    const view = new KagentView();
    for (const event of events) view.handle(event);
    expect(view.routes[0]).toBe('task');
    expect(view.routes.slice(1).every((r) => r === 'status-update' || r === 'artifact-update')).toBe(true);
    expect(view.finalized).toBe(true);
    expect((events.at(-1)!.data.result as Payload).status.state).toBe('completed');
  });

  it('an agent that answers with a message: message/send returns kind "message", message/stream sends that one message and ends', async () => {
    const sent = await server.result('message/send', { message: v03UserMessage('ping', { contextId: 'ctx-ping' }) });
    expect(sent).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'pong' }], contextId: 'ctx-ping' });
    expect(sent.taskId).toBeUndefined();
    const { events } = await server.stream('message/stream', { message: v03UserMessage('ping') });
    const view = new KagentView();
    for (const event of events) view.handle(event);
    expect(view.routes).toEqual(['message']);
    expect(view.conversation).toEqual([['agent', 'pong']]);
  });

  it('never sends a task without kind (the isTaskLike fallback is not needed)', async () => {
    const { events } = await server.stream('message/stream', { message: v03UserMessage('echo hi') });
    for (const event of events) {
      const payload = event.data.result as Payload;
      if (messageUtils.isTaskLike(payload)) expect(payload.kind).toBe('task');
      expect(typeof payload.kind).toBe('string');
    }
  });
});
