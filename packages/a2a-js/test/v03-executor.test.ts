// An executor written against @a2a-js/sdk 0.3 (plain objects in the v0.3
// JSON shapes, as Google ADK's is) served through fromA2AExecutor with
// { protocol: '0.3' } over real HTTP: the request context it reads, its
// kind-tagged events, and the orderings it may publish.
import type { A2AClient } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import type { V03StreamEvent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import type { A2AServer } from '@taskwire/server-http';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V03AgentExecutor, V03ExecutionEventBus, V03RequestContext } from '../src/index.js';
import { fromA2AExecutor } from '../src/index.js';
import { card } from './servers.js';

/** Asks for more on a new task; answers a follow-up turn with updates only (no Task event), as ADK does. */
class AskingExecutor implements V03AgentExecutor {
  readonly seen: V03RequestContext[] = [];

  async execute(ctx: V03RequestContext, bus: V03ExecutionEventBus): Promise<void> {
    this.seen.push(ctx);
    const { taskId, contextId } = ctx;
    const status = (state: 'working' | 'input-required' | 'completed', text?: string): V03StreamEvent => ({
      kind: 'status-update',
      taskId,
      contextId,
      final: state !== 'working',
      status: { state, ...(text && { message: { kind: 'message', messageId: crypto.randomUUID(), role: 'agent', parts: [{ kind: 'text', text }] } }) },
    });
    const word = ctx.userMessage.parts[0]?.kind === 'text' ? ctx.userMessage.parts[0].text : '';
    if (word === 'status-first') return bus.publish(status('completed'));
    if (!ctx.task) {
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [ctx.userMessage] });
      return bus.publish(status('input-required', 'Which colour?'));
    }
    bus.publish(status('working'));
    bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'paint', parts: [{ kind: 'text', text: 'painted ' }] }, append: true });
    bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'paint', parts: [{ kind: 'text', text: word }] }, append: true, lastChunk: true });
    bus.publish(status('completed'));
  }

  async cancelTask(): Promise<void> {}
}

describe("an @a2a-js/sdk 0.3 executor through fromA2AExecutor({ protocol: '0.3' })", { timeout: 30_000 }, () => {
  const executor = new AskingExecutor();
  let service: TaskService;
  let server: A2AServer;
  let client: A2AClient;
  beforeAll(async () => {
    service = new TaskService({ store: createMemoryTaskStore(), agent: fromA2AExecutor(executor, { protocol: '0.3' }), card: card('Asking') });
    server = await serveA2A({ service, card: (base) => ({ ...card('Asking'), supportedInterfaces: httpInterfaces(base) }) });
    client = await createClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await service?.close();
  });
  const send = (text: string, taskId?: string) => client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) } });

  it('gets a v0.3 request context, and its v0.3 events (an update first on the follow-up, appends from the first chunk) drive the task', async () => {
    const first = await send('paint it');
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.task.status.message?.parts).toEqual([{ text: 'Which colour?' }]);
    expect(executor.seen[0]).toMatchObject({ taskId: first.task.id, contextId: first.task.contextId, task: undefined, userMessage: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'paint it' }], taskId: first.task.id } });

    const second = await send('blue', first.task.id);
    if (!('task' in second)) throw new Error('expected a task');
    expect(second.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.task.artifacts).toEqual([{ artifactId: 'paint', parts: [{ text: 'painted ' }, { text: 'blue' }] }]);
    expect(executor.seen[1]).toMatchObject({ taskId: first.task.id, task: { kind: 'task', id: first.task.id, status: { state: 'input-required' } }, userMessage: { parts: [{ kind: 'text', text: 'blue' }] } });
  });

  it('refuses an update before any Task or Message event on a new task, as for a 1.x executor', async () => {
    await expect(send('status-first')).rejects.toMatchObject({ kind: 'Internal' });
  });
});
