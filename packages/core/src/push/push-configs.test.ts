import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { A2AError } from '../errors.js';
import type { AgentCard, Message, Task } from '../schema/index.js';
import type { CallContext } from '../calls.js';
import { TaskService } from '../service/task-service.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import { inMemoryTransport } from '../transport/in-memory.js';
import { createMemoryPushConfigStore } from './memory-push-store.js';
import type { PushOptions } from './push-config-store.js';
import { webhookDelivery } from './webhook-delivery.js';

const card = (pushNotifications: boolean): AgentCard => ({
  name: 'push test',
  description: 'push test agent',
  version: '1.0.0',
  supportedInterfaces: [{ url: 'memory://push', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true, pushNotifications },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** `wait` stays input-required; anything else completes. */
const agent: Agent = async (ctx) => {
  if (ctx.text === 'wait' && !ctx.isContinuation) return ctx.inputRequired('more?');
  await ctx.complete(`done: ${ctx.text}`);
};

const alice: CallContext = { principal: { id: 'alice' } };
const mallory: CallContext = { principal: { id: 'mallory' } };

function setup(push: PushOptions | null = { store: createMemoryPushConfigStore() }, pushCapability = true) {
  const warnings: string[] = [];
  const logger = { warn: (_fields: object, m?: string) => void warnings.push(m ?? ''), error: (_fields: object, m?: string) => void warnings.push(m ?? '') };
  const service = new TaskService({ store: createMemoryTaskStore(), agent, card: card(pushCapability), ...(push && { push }), logger });
  return { service, warnings, as: (context: CallContext) => inMemoryTransport(service, context) };
}

function message(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

async function send(service: TaskService, text: string, context: CallContext = alice): Promise<Task> {
  const result = await service.unary('SendMessage', { message: message(text) }, context);
  if (!('task' in result)) throw new Error('expected a task');
  return result.task;
}

async function failure(call: Promise<unknown>): Promise<A2AError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!A2AError.is(error)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return error;
}

describe('push config methods', () => {
  it('answer PushNotificationNotSupported without a push store, or when the card does not declare the capability', async () => {
    for (const { service, warnings, expectWarning } of [
      { ...setup(null), expectWarning: false },
      { ...setup(null, false), expectWarning: false },
      { ...setup({ store: createMemoryPushConfigStore() }, false), expectWarning: true },
    ]) {
      const task = await send(service, 'wait');
      const client = inMemoryTransport(service, alice);
      const calls = [
        client.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/a' }),
        client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }),
        client.unary('ListTaskPushNotificationConfigs', { taskId: task.id }),
        client.unary('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }),
        client.unary('SendMessage', { message: message('x'), configuration: { taskPushNotificationConfig: { url: 'https://hooks.example.com/a' } } }),
      ];
      for (const call of calls) expect((await failure(call)).kind).toBe('PushNotificationNotSupported');
      expect(warnings.some((w) => w.includes('capabilities.pushNotifications')), 'warning').toBe(expectWarning);
    }
  });

  it('create assigns an id, returns the stored config, and get returns it', async () => {
    const { service, as } = setup();
    const task = await send(service, 'wait');
    const config = { taskId: task.id, url: 'https://hooks.example.com/a2a', token: 'tok', authentication: { scheme: 'Bearer', credentials: 's3cret' } };
    const created = await as(alice).unary('CreateTaskPushNotificationConfig', config);
    expect(created).toEqual({ ...config, id: expect.any(String) });
    expect(created.id).not.toBe('');
    expect(await as(alice).unary('GetTaskPushNotificationConfig', { taskId: task.id, id: created.id! })).toEqual(created);
    const named = await as(alice).unary('CreateTaskPushNotificationConfig', { ...config, id: 'mine' });
    expect(named.id).toBe('mine');
    const replaced = await as(alice).unary('CreateTaskPushNotificationConfig', { taskId: task.id, id: 'mine', url: 'https://hooks.example.com/v2' });
    expect(await as(alice).unary('GetTaskPushNotificationConfig', { taskId: task.id, id: 'mine' })).toEqual(replaced);
  });

  it('is TaskNotFound for an unknown task, an unknown config, and for another caller', async () => {
    const { service, as } = setup();
    const task = await send(service, 'wait');
    const created = await as(alice).unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/a' });
    expect((await failure(as(alice).unary('CreateTaskPushNotificationConfig', { taskId: 'nope', url: 'https://hooks.example.com/a' }))).kind).toBe('TaskNotFound');
    const missing = await failure(as(alice).unary('GetTaskPushNotificationConfig', { taskId: task.id, id: 'nope' }));
    expect(missing.kind).toBe('TaskNotFound');
    expect(missing.message).toContain('Push notification config nope');
    const ref = { taskId: task.id, id: created.id! };
    for (const call of [
      as(mallory).unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/evil' }),
      as(mallory).unary('GetTaskPushNotificationConfig', ref),
      as(mallory).unary('ListTaskPushNotificationConfigs', { taskId: task.id }),
      as(mallory).unary('DeleteTaskPushNotificationConfig', ref),
      as({}).unary('GetTaskPushNotificationConfig', ref),
    ]) {
      expect((await failure(call)).kind).toBe('TaskNotFound');
    }
    expect(await as(alice).unary('GetTaskPushNotificationConfig', ref)).toEqual(created);
  });

  it('lists configs ordered by id, by pages, with no repeat or skip', async () => {
    const { service, as } = setup();
    const task = await send(service, 'wait');
    for (const id of ['e', 'b', 'd', 'a', 'c']) {
      await as(alice).unary('CreateTaskPushNotificationConfig', { taskId: task.id, id, url: `https://hooks.example.com/${id}` });
    }
    const all = await as(alice).unary('ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(all.configs.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(all.nextPageToken).toBeUndefined();
    const seen: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await as(alice).unary('ListTaskPushNotificationConfigs', { taskId: task.id, pageSize: 2, ...(pageToken && { pageToken }) });
      expect(page.configs.length).toBeLessThanOrEqual(2);
      seen.push(...page.configs.map((c) => c.id!));
      pageToken = page.nextPageToken;
    } while (pageToken);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    const bad = await failure(as(alice).unary('ListTaskPushNotificationConfigs', { taskId: task.id, pageToken: 'garbage!' }));
    expect(bad.kind).toBe('InvalidParams');
    expect(bad.message).toContain('ListTaskPushNotificationConfigs');
  });

  it('delete is idempotent and removes the config', async () => {
    const { service, as } = setup();
    const task = await send(service, 'wait');
    const created = await as(alice).unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/a' });
    const ref = { taskId: task.id, id: created.id! };
    expect(await as(alice).unary('DeleteTaskPushNotificationConfig', ref)).toEqual({});
    expect(await as(alice).unary('DeleteTaskPushNotificationConfig', ref)).toEqual({});
    expect(await as(alice).unary('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'never-existed' })).toEqual({});
    expect((await failure(as(alice).unary('GetTaskPushNotificationConfig', ref))).kind).toBe('TaskNotFound');
    expect((await as(alice).unary('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toEqual([]);
    expect((await failure(as(alice).unary('DeleteTaskPushNotificationConfig', { taskId: 'nope', id: 'x' }))).kind).toBe('TaskNotFound');
  });

  it('removes the configs of a task the store deletes or evicts, leaving other tasks\' configs', async () => {
    const configs = createMemoryPushConfigStore();
    const tasks = createMemoryTaskStore({ maxTasks: 2 });
    const service = new TaskService({ store: tasks, agent, card: card(true), push: { store: configs } });
    const as = inMemoryTransport(service, alice);
    const hooked = async (text: string) => {
      const task = await send(service, text);
      await as.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/a' });
      return task;
    };
    const [evicted, deleted, kept] = [await hooked('one'), await hooked('two'), await hooked('wait')];
    // Three tasks in a store of two: the oldest finished one went, and its configs with it.
    expect(await tasks.get(evicted.id)).toBeUndefined();
    expect(await configs.list(evicted.id)).toEqual([]);
    await tasks.delete(deleted.id);
    expect(await configs.list(deleted.id)).toEqual([]);
    expect((await configs.list(kept.id)).map((c) => c.config.url)).toEqual(['https://hooks.example.com/a']);
    await service.close();
  });

  it('stores a config that arrives with SendMessage, for the new task and for a continued one', async () => {
    const { as } = setup();
    const first = await as(alice).unary('SendMessage', {
      message: message('wait'),
      configuration: { taskPushNotificationConfig: { id: 'hook', url: 'https://hooks.example.com/new', token: 't' } },
    });
    if (!('task' in first)) throw new Error('expected a task');
    const taskId = first.task.id;
    expect(await as(alice).unary('GetTaskPushNotificationConfig', { taskId, id: 'hook' })).toEqual({
      id: 'hook',
      taskId,
      url: 'https://hooks.example.com/new',
      token: 't',
    });
    await as(alice).unary('SendMessage', {
      message: message('go', { taskId }),
      configuration: { taskPushNotificationConfig: { url: 'https://hooks.example.com/second' } },
    });
    const listed = await as(alice).unary('ListTaskPushNotificationConfigs', { taskId });
    expect(listed.configs.map((c) => c.url).sort()).toEqual(['https://hooks.example.com/new', 'https://hooks.example.com/second']);
  });

  it('refuses non-public webhook URLs at config time with InvalidParams naming the field and the reason, changing nothing', async () => {
    const { service, as } = setup({ store: createMemoryPushConfigStore(), delivery: webhookDelivery() });
    const task = await send(service, 'wait');
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.1/hook', 'http://169.254.169.254/', 'http://[::1]/hook', 'http://localhost:9/hook']) {
      const error = await failure(as(alice).unary('CreateTaskPushNotificationConfig', { taskId: task.id, url }));
      expect(error.kind, url).toBe('InvalidParams');
      expect(error.message).toMatch(/^Invalid parameters: url: the webhook host .* is an? (loopback|private|cloud metadata) address/);
    }
    expect((await as(alice).unary('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toEqual([]);
    const viaSend = await failure(
      as(alice).unary('SendMessage', { message: message('hi'), configuration: { taskPushNotificationConfig: { url: 'http://10.0.0.1/x' } } }),
    );
    expect(viaSend.message).toContain('configuration.taskPushNotificationConfig.url: the webhook host 10.0.0.1 is a private address');
    expect((await as(alice).unary('ListTasks', {})).tasks.map((t) => t.id)).toEqual([task.id]);
    await service.close();
  });
});
