import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { createMemoryPushConfigStore } from '../push/memory-push-store.js';
import type { AgentCard, Message } from '../schema/index.js';
import { fakeCoordinator, leasedStore } from './cluster-test-kit.js';
import { LeaseLostError } from './coordination.js';
import { deferred } from './service-test-kit.js';
import { TaskService } from './task-service.js';

const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/** An agent silent until the test opens its gate; then it says whether its signal aborted and tries to complete its task. */
function silentAgent() {
  const started = deferred<string>();
  const gate = deferred();
  const seen = { aborted: false, error: undefined as unknown };
  const agent: Agent = async (ctx) => {
    started.resolve(ctx.task.id);
    await gate.promise;
    seen.aborted = ctx.signal.aborted;
    await ctx.complete('late').catch((error: unknown) => void (seen.error = error));
  };
  return { agent, started: started.promise, open: () => gate.resolve(), seen };
}

describe('every commit of a run is fenced (several processes on the store)', () => {
  it.each(['blocking', 'streaming'] as const)(
    'a held-back %s run stored after the window: a lost lease aborts it, and once the task is taken over (here, then elsewhere) its late commit is refused, never sent unfenced',
    async (kind) => {
      const leased = leasedStore();
      const fake = fakeCoordinator('here');
      const silent = silentAgent();
      const service = new TaskService({ store: leased.store, agent: silent.agent, coordinator: fake.coordinator, newTaskWindowMs: 0 });
      const call = new AbortController();
      const message = user('go');
      const sent =
        kind === 'blocking'
          ? service.unary('SendMessage', { message }, { signal: call.signal })
          : service.stream('SendStreamingMessage', { message }, { signal: call.signal });
      sent.catch(() => undefined);
      const id = await silent.started;
      // The window passed: the task was stored alone, and its lease held.
      expect(await fake.whenHeld(id)).toBe(1);
      // This process could not renew: the lease is lost and its sweep takes the task over (a run here is still going)...
      fake.lose(id);
      await fake.host().settleOrphan(id, await leased.takeOver(id, 'here'), 1);
      // ...then another process holds it.
      await leased.takeOver(id, 'elsewhere');
      silent.open();
      await service.idle();
      expect(silent.seen.aborted).toBe(true);
      expect(silent.seen.error).toBeInstanceOf(LeaseLostError);
      expect((await leased.store.get(id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
      expect(leased.requests.filter((r) => r.lease === undefined)).toEqual([]);
      call.abort();
      await service.close();
    },
  );

  it('a lost lease aborts the signal of a held-back run before the task is taken over', async () => {
    const leased = leasedStore();
    const fake = fakeCoordinator('here');
    const silent = silentAgent();
    const service = new TaskService({ store: leased.store, agent: silent.agent, coordinator: fake.coordinator, newTaskWindowMs: 0 });
    const call = new AbortController();
    void service.unary('SendMessage', { message: user('go') }, { signal: call.signal }).catch(() => undefined);
    const id = await silent.started;
    await fake.whenHeld(id);
    await leased.takeOver(id, 'elsewhere');
    fake.lose(id);
    silent.open();
    await service.idle();
    expect(silent.seen.aborted).toBe(true);
    expect(silent.seen.error).toBeInstanceOf(LeaseLostError);
    expect((await leased.store.get(id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    call.abort();
    await service.close();
  });
});

describe('a run claimed before it starts', () => {
  it('a continuation whose lease is lost while its push config is stored never starts its agent', async () => {
    const leased = leasedStore();
    const fake = fakeCoordinator('here');
    const storing = deferred();
    const proceed = deferred();
    const configs = createMemoryPushConfigStore();
    const put = configs.put.bind(configs);
    configs.put = async (entry) => {
      storing.resolve();
      await proceed.promise;
      return put(entry);
    };
    const runs: boolean[] = [];
    const agent: Agent = (ctx) => {
      runs.push(ctx.isContinuation);
      return ctx.isContinuation ? ctx.complete('done') : ctx.inputRequired('what now?');
    };
    const card: AgentCard = {
      name: 'fencing test',
      description: 'fencing test agent',
      version: '1.0.0',
      supportedInterfaces: [{ url: 'memory://fencing', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { pushNotifications: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const service = new TaskService({ store: leased.store, agent, coordinator: fake.coordinator, card, push: { store: configs } });
    const asked = await service.unary('SendMessage', { message: user('ask') });
    const id = 'task' in asked ? asked.task.id : '';
    const config = { url: 'https://example.com/hook' };
    const answered = service.unary('SendMessage', {
      message: { ...user('insta'), taskId: id },
      configuration: { returnImmediately: true, taskPushNotificationConfig: config },
    });
    await storing.promise;
    // The continuation's claim is committed and held; its lease is lost before the run starts.
    await leased.takeOver(id, 'elsewhere');
    fake.lose(id);
    proceed.resolve();
    await answered;
    await service.idle();
    expect(runs).toEqual([false]);
    expect((await leased.store.get(id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    await service.close();
  });
});
