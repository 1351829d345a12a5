import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { CallContext } from '../calls.js';
import { A2AError } from '../errors.js';
import type { Message, Task } from '../schema/index.js';
import { racingReads } from '../store/racing-reads.js';
import { TaskService } from './task-service.js';

/** Asks for input on a task's first message; answers a later one and completes. */
const agent: Agent = async (ctx) => {
  if (ctx.isContinuation) await ctx.complete(`got ${ctx.text}`);
  else await ctx.inputRequired('which one?');
};

const V11: CallContext = { version: '1.1' };
const message = (text: string, taskId?: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(taskId && { taskId }) });
const taskOf = (result: object): Task => ('task' in result ? (result.task as Task) : expect.fail('expected a task'));

/**
 * Two messages with the same `ifGenerationMatch` sent at once to `services`
 * (one each, round robin) whose store's next two reads meet: both pass the
 * intake's check, then race to commit. Resolves both outcomes and the task after.
 */
async function race(services: readonly TaskService[], racing: ReturnType<typeof racingReads>) {
  const asked = taskOf(await services[0]!.unary('SendMessage', { message: message('start') }, V11));
  await Promise.all(services.map((s) => s.idle()));
  expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  const sent = [message('red', asked.id), message('blue', asked.id)];
  racing.arm(2);
  const outcomes = await Promise.allSettled(sent.map((m, i) => services[i % services.length]!.unary('SendMessage', { message: m, configuration: { ifGenerationMatch: asked.generation } }, V11)));
  await Promise.all(services.map((s) => s.idle()));
  const after = await services[0]!.unary('GetTask', { id: asked.id }, V11);
  return { asked, sent, outcomes, after };
}

function expectOneWinner({ asked, sent, outcomes, after }: Awaited<ReturnType<typeof race>>): void {
  const won = outcomes.findIndex((o) => o.status === 'fulfilled');
  const lost = outcomes.findIndex((o) => o.status === 'rejected');
  expect([won, lost].sort()).toEqual([0, 1]);
  const refusal = (outcomes[lost] as PromiseRejectedResult).reason as unknown;
  expect(A2AError.is(refusal) && refusal.kind).toBe('TaskGenerationMismatch');
  expect(refusal).toMatchObject({ code: -32010, metadata: { taskId: asked.id } });
  expect(Number((refusal as A2AError).metadata?.currentGeneration)).toBeGreaterThan(asked.generation!);
  // The winner's message is in the history once, the loser's never; the task went on with the winner's.
  const users = after.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId);
  expect(users).toEqual([asked.history![0]!.messageId, sent[won]!.messageId]);
  expect(after.status.state).toBe('TASK_STATE_COMPLETED');
  expect(after.status.message?.parts).toEqual([{ text: `got ${won === 0 ? 'red' : 'blue'}` }]);
}

describe('ifGenerationMatch is checked in the commit of the message (A2A 1.1)', () => {
  it('two messages matching one generation at once: one is taken, the other is TaskGenerationMismatch', async () => {
    const racing = racingReads();
    const service = new TaskService({ store: racing.store, agent, protocol: { v1_1: true } });
    expectOneWinner(await race([service], racing));
  });

  it('two processes on one store: the message whose commit conflicts checks the generation again on the task it reads again', async () => {
    const racing = racingReads();
    const services = [0, 1].map(() => new TaskService({ store: racing.store, agent, protocol: { v1_1: true } }));
    expectOneWinner(await race(services, racing));
  });
});
