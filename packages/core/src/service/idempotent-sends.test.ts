import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { CallContext } from '../calls.js';
import type { Message } from '../schema/index.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { racingReads } from '../store/racing-reads.js';
import { keyedTaskId } from './idempotent-sends.js';
import { gatedAgent } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const first: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'go' }] };

function counting(store: TaskStore = createMemoryTaskStore()) {
  let runs = 0;
  const agent: Agent = async (ctx) => {
    runs++;
    await ctx.complete(`run ${runs}`);
  };
  return { store, service: new TaskService({ store, agent, protocol: { v1_1: true } }), runs: () => runs };
}

/** A memory store whose first `held` reads wait for each other: that many sends all find no task before any creates it. */
function racingStore(held: number): TaskStore {
  const racing = racingReads();
  racing.arm(held);
  return racing.store;
}

const send = (service: TaskService, context: CallContext, message = first) =>
  service.unary('SendMessage', { message }, context).then((r) => ('task' in r ? r.task.id : 'a message'));

describe('idempotent first sends (core)', () => {
  it('two sends with one key at once make one task and one run (the loser of the creating commit is the retry)', async () => {
    const { service, runs } = counting(racingStore(2));
    const context = { idempotencyKey: 'k-1' };
    const ids = await Promise.all([send(service, context), send(service, context)]);
    expect(new Set(ids).size).toBe(1);
    await service.idle();
    expect(runs()).toBe(1);
  });

  it('scopes keys per caller: the same key from two principals makes two tasks', async () => {
    const { service, runs } = counting();
    const alice = await send(service, { idempotencyKey: 'k', principal: { id: 'alice' } });
    const bob = await send(service, { idempotencyKey: 'k', principal: { id: 'bob' } });
    expect(alice).not.toBe(bob);
    expect(await keyedTaskId('\u001falice', 'k')).toBe(alice);
    expect(runs()).toBe(2);
  });

  it('refuses a key that is empty, too long or not visible ASCII, and ignores the key of a message that names its task', async () => {
    const { service, runs } = counting();
    for (const key of ['', 'x'.repeat(256), 'a b', 'clé']) {
      await expect(service.unary('SendMessage', { message: first }, { idempotencyKey: key })).rejects.toMatchObject({ kind: 'InvalidParams' });
    }
    expect(runs()).toBe(0);
    expect(await send(service, { idempotencyKey: 'x'.repeat(255) })).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await expect(send(service, { idempotencyKey: 'y' }, { ...first, messageId: 'm-2', taskId: 'not-there' })).rejects.toMatchObject({ kind: 'TaskNotFound' });
  });

  it('a retry that adds the contextId the first send left out is still the same message', async () => {
    const { service, store } = counting();
    const id = await send(service, { idempotencyKey: 'k' });
    const stored = await store.get(id);
    expect(await send(service, { idempotencyKey: 'k' }, { ...first, contextId: stored!.task.contextId })).toBe(id);
    await expect(send(service, { idempotencyKey: 'k' }, { ...first, contextId: 'another' })).rejects.toMatchObject({ kind: 'IdempotencyKeyReused' });
  });

  it('ignores an ifGenerationMatch (A2A 1.1) on a keyed first send, on its retry while it runs too: the message creates its task', async () => {
    const gated = gatedAgent();
    const service = new TaskService({ store: createMemoryTaskStore(), agent: gated.agent, protocol: { v1_1: true } });
    const context = { idempotencyKey: 'k', version: '1.1' as const };
    const configuration = { ifGenerationMatch: 7, returnImmediately: true };
    const sent = () => service.unary('SendMessage', { message: first, configuration }, context).then((r) => ('task' in r ? r.task.id : 'a message'));
    const id = await sent();
    await gated.started;
    expect(await sent()).toBe(id);
    gated.release();
    await service.idle();
  });
});
