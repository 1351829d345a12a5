/**
 * Seed 000: the Bindu frontend (app.js) decides task ids itself. It reuses
 * the current task id while the task is input-required / auth-required, and
 * otherwise generates a NEW task id for the next message, listing the
 * previous task in `referenceTaskIds`; every task shares one contextId. It
 * speaks v0.3 JSON-RPC (`message/send`, `kind` shapes, kebab states) and
 * sends no A2A-Version header.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { firstText, SeedServer, v03UserMessage } from './seeds-fixture.js';

const NON_TERMINAL = new Set(['input-required', 'auth-required']);

/** The task-id decision logic of Bindu's app.js, over plain fetch. */
class BinduFrontend {
  currentTaskId: string | undefined;
  currentTaskState: string | undefined;
  readonly contextId = crypto.randomUUID();

  constructor(private readonly server: SeedServer) {}

  /** The params app.js would send for `text` in the current state. */
  nextParams(text: string): { message: Record<string, unknown> } {
    let taskId: string;
    const referenceTaskIds: string[] = [];
    if (this.currentTaskState && NON_TERMINAL.has(this.currentTaskState) && this.currentTaskId) {
      taskId = this.currentTaskId;
    } else {
      taskId = crypto.randomUUID();
      if (this.currentTaskId) referenceTaskIds.push(this.currentTaskId);
    }
    return { message: v03UserMessage(text, { contextId: this.contextId, taskId, referenceTaskIds }) };
  }

  async send(text: string): Promise<Record<string, any>> {
    const params = this.nextParams(text);
    const task = await this.server.result('message/send', params);
    this.currentTaskId = task.id as string;
    this.currentTaskState = (task.status as { state: string }).state;
    return { ...task, sentTaskId: params.message.taskId, sentReferences: params.message.referenceTaskIds };
  }
}

describe('seed 000: Bindu frontend task-id management over v0.3 JSON-RPC', () => {
  let server: SeedServer;
  beforeEach(async () => {
    server = await SeedServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it('quote -> input-required (reuse id) -> completed -> "make it shorter" as a new client-id task referencing it', async () => {
    const ui = new BinduFrontend(server);

    const a = await ui.send('provide a sunset quote');
    expect(a.kind).toBe('task');
    expect(a.id).toBe(a.sentTaskId); // the client's own new id is the task's id
    expect(a.contextId).toBe(ui.contextId);
    expect(a.status.state).toBe('input-required');
    expect(a.status.message.kind).toBe('message');
    expect(a.status.message.role).toBe('agent');
    expect(a.status.message.parts).toEqual([{ kind: 'text', text: 'Do you want Instagram, Pinterest, or General?' }]);
    expect(a.history.map((m: any) => [m.kind, m.role, firstText(m)])).toEqual([['message', 'user', 'provide a sunset quote']]);

    const a2 = await ui.send('insta');
    expect(a2.sentTaskId).toBe(a.id); // input-required: REUSE
    expect(a2.sentReferences).toEqual([]);
    expect(a2.id).toBe(a.id);
    expect(a2.contextId).toBe(ui.contextId);
    expect(a2.status.state).toBe('completed');
    expect(a2.status.message.role).toBe('agent');
    const quote = a2.artifacts.find((x: any) => x.name === 'quote');
    expect(quote.parts[0].kind).toBe('text');
    expect(firstText(quote)!.length).toBeGreaterThan(0);
    const turns = a2.history.map((m: any) => [m.role, firstText(m)]);
    expect(turns).toContainEqual(['user', 'provide a sunset quote']);
    expect(turns).toContainEqual(['agent', 'Do you want Instagram, Pinterest, or General?']);
    expect(turns).toContainEqual(['user', 'insta']);

    const b = await ui.send('make it shorter');
    expect(b.sentTaskId).not.toBe(a.id); // completed: CREATE a new id
    expect(b.sentReferences).toEqual([a.id]);
    expect(b.id).toBe(b.sentTaskId);
    expect(b.contextId).toBe(ui.contextId);
    expect(b.status.state).toBe('completed');
    const shorter = firstText(b.artifacts.find((x: any) => x.name === 'quote'))!;
    expect(shorter.length).toBeGreaterThan(0);
    expect(shorter.length).toBeLessThan(firstText(quote)!.length);
    expect(b.history[0].referenceTaskIds).toEqual([a.id]);
  });

  it('rejects reusing a completed task id (immutable) and leaves the task unchanged', async () => {
    const ui = new BinduFrontend(server);
    const done = await ui.send('echo once');
    expect(done.status.state).toBe('completed');
    const reuse = v03UserMessage('echo twice', { contextId: ui.contextId, taskId: done.id });
    const error = await server.error('message/send', { message: reuse });
    expect(error.code).toBe(-32004);
    expect(error.message).toContain(done.id);
    const { sentTaskId: _id, sentReferences: _refs, ...asAnswered } = done;
    expect(await server.result('tasks/get', { id: done.id })).toEqual(asAnswered);
  });

  it('reuses the task id while auth-required, and the next message completes that same task', async () => {
    const ui = new BinduFrontend(server);
    const first = await ui.send('auth');
    expect(first.status.state).toBe('auth-required');
    const second = await ui.send('here are my credentials');
    expect(second.sentTaskId).toBe(first.id);
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe('completed');
  });

  it('creates failed and rejected tasks under client ids; the next message starts a new task referencing them', async () => {
    const ui = new BinduFrontend(server);
    const failed = await ui.send('fail');
    expect(failed.id).toBe(failed.sentTaskId);
    expect(failed.status.state).toBe('failed');
    expect(failed.status.message.role).toBe('agent');
    const rejected = await ui.send('reject');
    expect(rejected.sentReferences).toEqual([failed.id]);
    expect(rejected.id).not.toBe(failed.id);
    expect(rejected.status.state).toBe('rejected');
  });
});
