import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import type { StreamEvent } from '../calls.js';
import { sharedProcesses } from './cluster-test-kit.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const send = { message: { messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'go' }] } };
const card = { name: 'Grace', description: 'Cancels itself', version: '1', supportedInterfaces: [], capabilities: { streaming: true }, defaultInputModes: [], defaultOutputModes: [], skills: [] };

/** An agent that works until its signal aborts, then says it stopped (its own canceled status); `said` settles with that emit's outcome. */
function stopsSayingSo() {
  const said = deferred<unknown>();
  const agent: Agent = async (ctx) => {
    await ctx.working();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    await ctx.emit({ kind: 'status', state: 'TASK_STATE_CANCELED', message: 'stopped on a, as asked' }).then(
      () => said.resolve('kept'),
      (error: unknown) => said.resolve(error),
    );
  };
  return { agent, said: said.promise };
}

/**
 * Process `a` streams a message to `agent`; once the task works, process
 * `b` cancels it. Gives the stream's events, the cancel's answer (or error)
 * and the abort requests made.
 */
async function cancelAtTheOther(agent: Agent, graceMs: number, answerAborts = true) {
  const shared = sharedProcesses();
  const a = new TaskService({ store: shared.store, agent, card, coordinator: shared.coordinator('a', { answerAborts }), cancelGraceMs: graceMs });
  const b = new TaskService({ store: shared.store, agent, card, coordinator: shared.coordinator('b'), cancelGraceMs: graceMs });
  const events: StreamEvent[] = [];
  let answer: Promise<unknown> | undefined;
  for await (const event of await a.stream('SendStreamingMessage', send)) {
    events.push(event);
    const response = event.response;
    if (!answer && 'statusUpdate' in response && response.statusUpdate.status.state === 'TASK_STATE_WORKING') {
      answer = b.unary('CancelTask', { id: response.statusUpdate.taskId }).catch((error: unknown) => error);
    }
  }
  const result = await answer;
  await Promise.all([a.close(), b.close()]);
  return { events, result, requests: shared.abortRequests, stored: await shared.store.get((events[0]!.response as { task: { id: string } }).task.id) };
}

const last = (events: StreamEvent[]) => events.at(-1)!.response;
const saidByAgent = { state: 'TASK_STATE_CANCELED', message: { role: 'ROLE_AGENT', parts: [{ text: 'stopped on a, as asked' }] } };

describe('CancelTask with a cancel grace, made at another process than the one running the task', () => {
  it("asks the running process to abort its run: the agent's own canceled status is the answer, the stream's end and what is stored", async () => {
    const { agent, said } = stopsSayingSo();
    const { events, result, requests, stored } = await cancelAtTheOther(agent, 30_000);
    expect(requests).toEqual([{ from: 'b', taskId: stored!.task.id, graceMs: 30_000 }]);
    expect(await said).toBe('kept');
    expect(result).toMatchObject({ status: saidByAgent });
    expect(last(events)).toMatchObject({ statusUpdate: { status: saidByAgent } });
    expect(stored!.task.status).toMatchObject(saidByAgent);
  });

  it('a running process that ignores the request (an older release) leaves the cancel to the asking one once the grace has passed', async () => {
    const { agent, said } = stopsSayingSo();
    const { events, result, requests, stored } = await cancelAtTheOther(agent, 200, false);
    expect(requests).toHaveLength(1);
    // Canceled by the service at b: no message; the agent's own status came too late and was refused.
    expect(result).toMatchObject({ status: { state: 'TASK_STATE_CANCELED' } });
    expect((result as { status: object }).status).not.toHaveProperty('message');
    expect(last(events)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } });
    expect(await said).toBeInstanceOf(A2AError);
    expect(stored!.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(stored!.task.status).not.toHaveProperty('message');
  });

  it('an agent that completes its task instead makes the cancel TaskNotCancelable', async () => {
    const agent: Agent = async (ctx) => {
      await ctx.working();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      await ctx.complete('finished anyway');
    };
    const { events, result, stored } = await cancelAtTheOther(agent, 30_000);
    expect(result).toMatchObject({ code: -32002 });
    expect(last(events)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(stored!.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('asks nothing without a grace (canceled at once) nor for a task no process runs (input-required)', async () => {
    const { agent } = stopsSayingSo();
    const none = await cancelAtTheOther(agent, 0);
    expect(none.requests).toEqual([]);
    expect(none.result).toMatchObject({ status: { state: 'TASK_STATE_CANCELED' } });
    expect(none.stored!.task.status).not.toHaveProperty('message');

    const shared = sharedProcesses();
    const asks: Agent = (ctx) => ctx.emit({ kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: 'Which day?' });
    const a = new TaskService({ store: shared.store, agent: asks, card, coordinator: shared.coordinator('a'), cancelGraceMs: 600_000 });
    const b = new TaskService({ store: shared.store, agent: asks, card, coordinator: shared.coordinator('b'), cancelGraceMs: 600_000 });
    const sent = await a.unary('SendMessage', send);
    const id = 'task' in sent ? sent.task.id : '';
    expect((await b.unary('CancelTask', { id })).status.state).toBe('TASK_STATE_CANCELED');
    expect(shared.abortRequests).toEqual([{ from: 'b', taskId: id, graceMs: 600_000 }]);
    await Promise.all([a.close(), b.close()]);
  });
});
