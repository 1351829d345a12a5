import type { Task } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveOidcPrincipals } from './auth/oidc-principals.js';
import type { TwoPrincipalHost } from './auth/two-principals.js';
import { failureOf, KEYS, sendText, serveTwoPrincipals } from './auth/two-principals.js';
import type { Binding, ClosableTransport } from './support/transports.js';
import { connectTransport } from './support/transports.js';

const BINDINGS: readonly Binding[] = ['JSON-RPC', 'HTTP+JSON', 'gRPC', 'WebSocket', 'JSON-RPC v0.3'];
const HOOK = 'https://hooks.example.com/a2a';

/** How the two principals prove who they are: API keys, or client-credentials JWTs from a real OpenID provider (verified with jwtAuth, authorized by scopePolicy). */
const MODES = ['API keys', 'OIDC JWTs'] as const;
type Credentials = (who: 'alice' | 'bob') => Promise<Record<string, string>>;

const refusals: string[] = [];
afterAll(() => {
  if (refusals.length) console.log(`auth isolation: bob was refused with TaskNotFound ${refusals.length} times on alice's tasks (${MODES.join(' and ')}; ${BINDINGS.join(', ')}); alice succeeded each time`);
});

describe.each(MODES)('with %s', (mode) => {
  let host: TwoPrincipalHost;
  let credentials: Credentials;
  beforeAll(async () => {
    if (mode === 'API keys') {
      host = await serveTwoPrincipals();
      credentials = async (who) => ({ 'x-api-key': KEYS[who] });
    } else {
      const oidc = await serveOidcPrincipals();
      host = oidc;
      credentials = oidc.bearer;
    }
  });
  afterAll(async () => {
    await host?.close();
  });

  describe.each(BINDINGS)('auth isolation over %s: bob can do nothing with alice’s tasks, alice can', (binding) => {
    let alice: ClosableTransport;
    let bob: ClosableTransport;
    let done: Task;
    let asking: Task;
    let running: Task;
    let quoted: Task;
    let configId: string;

    beforeAll(async () => {
      alice = connectTransport(binding, host.urls, await credentials('alice'));
      bob = connectTransport(binding, host.urls, await credentials('bob'));
      done = await sendText(alice, 'echo for alice only');
      asking = await sendText(alice, 'write me a sunset quote');
      running = await sendText(alice, 'slow 400 50', { returnImmediately: true });
      const quote = await sendText(alice, 'a sunset quote please');
      quoted = await sendText(alice, 'insta', { taskId: quote.id });
      const config = await alice.unary('CreateTaskPushNotificationConfig', { taskId: asking.id, url: HOOK });
      configId = config.id!;
    });
    afterAll(async () => {
      await Promise.all([alice?.close(), bob?.close()]);
    });

    /** Bob's call must fail with TaskNotFound, exactly as for a task that does not exist. */
    const refused = async (what: string, call: Promise<unknown> | AsyncIterable<unknown>) => {
      expect(await failureOf(call), `bob: ${what}`).toBe('TaskNotFound');
      refusals.push(what);
    };

    it('get, cancel, subscribe (live and replayed), continue and push-config calls on her tasks all answer TaskNotFound', async () => {
      for (const task of [done, asking, running]) await refused(`GetTask ${task.status.state}`, bob.unary('GetTask', { id: task.id }));
      for (const task of [asking, running]) await refused(`CancelTask ${task.status.state}`, bob.unary('CancelTask', { id: task.id }));
      await refused('SubscribeToTask a running task', bob.stream('SubscribeToTask', { id: running.id }));
      await refused('SubscribeToTask with afterSequence (a replay)', bob.stream('SubscribeToTask', { id: done.id, afterSequence: 0 }));
      await refused('SendMessage continuing her input-required task', sendText(bob, 'insta', { taskId: asking.id }));
      await refused('SendStreamingMessage continuing her task', bob.stream('SendStreamingMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'insta' }], taskId: asking.id } }));
      await refused('CreateTaskPushNotificationConfig', bob.unary('CreateTaskPushNotificationConfig', { taskId: asking.id, url: HOOK }));
      await refused('GetTaskPushNotificationConfig', bob.unary('GetTaskPushNotificationConfig', { taskId: asking.id, id: configId }));
      await refused('ListTaskPushNotificationConfigs', bob.unary('ListTaskPushNotificationConfigs', { taskId: asking.id }));
      await refused('DeleteTaskPushNotificationConfig', bob.unary('DeleteTaskPushNotificationConfig', { taskId: asking.id, id: configId }));
    });

    it('her tasks are unchanged by his attempts, and she can still do everything he could not', async () => {
      const now = await alice.unary('GetTask', { id: asking.id });
      expect(now.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(now.history).toEqual(asking.history);
      expect((await alice.unary('GetTask', { id: running.id })).status.state).not.toBe('TASK_STATE_CANCELED');
      expect((await alice.unary('GetTaskPushNotificationConfig', { taskId: asking.id, id: configId })).url).toBe(HOOK);
      expect((await alice.unary('ListTaskPushNotificationConfigs', { taskId: asking.id })).configs.map((c) => c.id)).toEqual([configId]);
      const replay = [];
      for await (const event of alice.stream('SubscribeToTask', { id: done.id, afterSequence: 0 })) replay.push(event);
      expect(replay.length).toBeGreaterThan(1);
      const live = alice.stream('SubscribeToTask', { id: running.id })[Symbol.asyncIterator]();
      expect((await live.next()).done).toBe(false);
      await live.return?.();
      expect((await alice.unary('CancelTask', { id: running.id })).status.state).toBe('TASK_STATE_CANCELED');
      expect((await sendText(alice, 'insta', { taskId: asking.id })).status.state).toBe('TASK_STATE_COMPLETED');
      await alice.unary('DeleteTaskPushNotificationConfig', { taskId: asking.id, id: configId });
    });

    it('ListTasks and referenceTaskIds never show him her tasks', async () => {
      const hers = new Set([done.id, asking.id, running.id, quoted.id]);
      const his = await bob.unary('ListTasks', { pageSize: 100 });
      expect(his.tasks.filter((t) => hers.has(t.id))).toEqual([]);
      expect((await bob.unary('ListTasks', { contextId: done.contextId })).tasks).toEqual([]);
      // "make it shorter" naming her quote task: the agent gets no referenced task, so there is nothing to shorten.
      const shorter = await sendText(bob, 'make it shorter', { referenceTaskIds: [quoted.id] });
      expect(shorter.artifacts ?? []).toEqual([]);
      expect(JSON.stringify(shorter.status.message)).toContain('nothing to shorten');
      const listed = await alice.unary('ListTasks', { pageSize: 100 });
      expect(listed.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([...hers]));
      expect(listed.tasks.map((t) => t.id)).not.toContain(shorter.id);
    });

    it('a caller without credentials is refused (Unauthenticated)', async () => {
      const anonymous = connectTransport(binding, host.urls);
      try {
        expect(await failureOf(anonymous.unary('GetTask', { id: done.id }))).toBe('Unauthenticated');
        expect(await failureOf(anonymous.unary('ListTasks', {}))).toBe('Unauthenticated');
      } finally {
        await anonymous.close();
      }
    });
  });
});
