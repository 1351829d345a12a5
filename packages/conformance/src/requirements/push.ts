import type { AgentCard, PushDelivery, TaskServiceOptions } from '@taskwire/core';
import { createMemoryPushConfigStore } from '@taskwire/core';
import { webhookDelivery } from '@taskwire/core/push';
import { startWebhookReceiver } from '@taskwire/core/testing';
import { expect } from 'vitest';
import { SUITE_CARD, userMessage } from '../harness.js';
import { requirement } from '../requirement.js';

/** The suite card with `capabilities.pushNotifications: true`. */
export const PUSH_SUITE_CARD: AgentCard = { ...SUITE_CARD, capabilities: { ...SUITE_CARD.capabilities, pushNotifications: true } };

/** Service options that turn push on: a memory config store and, when given, a delivery. */
export function pushServiceOptions(delivery?: PushDelivery): Partial<TaskServiceOptions> {
  return { card: PUSH_SUITE_CARD, push: { store: createMemoryPushConfigStore(), ...(delivery && { delivery }) } };
}

const HOOK = 'https://hooks.example.com/a2a';

/** The four push-config methods, a config inside SendMessage, and the webhook calls they lead to. */
export const pushRequirements = [
  requirement('push-config-create-get', '3.1.7', 'CreateTaskPushNotificationConfig stores the config under a server-assigned id; Get returns it', async (h) => {
    const p = await h.withService(pushServiceOptions());
    const task = await p.send('quote');
    const config = { taskId: task.id, url: HOOK, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } };
    const created = await p.client.unary('CreateTaskPushNotificationConfig', config);
    expect(created).toMatchObject(config);
    expect(created.id).toBeTruthy();
    expect(await p.client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: created.id! })).toEqual(created);
  }),
  requirement('push-config-redacted', '13.1', 'with redactSecrets, Get and List answer configs without their token and credentials (scheme kept)', async (h) => {
    const options = pushServiceOptions();
    const p = await h.withService({ ...options, push: { ...options.push!, redactSecrets: true } });
    const task = await p.send('quote');
    const config = { taskId: task.id, url: HOOK, token: 'tok', authentication: { scheme: 'Bearer', credentials: 'secret' } };
    const created = await p.client.unary('CreateTaskPushNotificationConfig', config);
    const shown = { id: created.id, taskId: task.id, url: HOOK, authentication: { scheme: 'Bearer' } };
    expect(await p.client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: created.id! })).toEqual(shown);
    expect((await p.client.unary('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toEqual([shown]);
  }),
  requirement('push-config-unknown-task', '3.1.7', 'push config methods naming an unknown task are TaskNotFound (-32001)', async (h) => {
    const p = await h.withService(pushServiceOptions());
    const calls = [
      () => p.client.unary('CreateTaskPushNotificationConfig', { taskId: 'no-such-task', url: HOOK }),
      () => p.client.unary('GetTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'c1' }),
      () => p.client.unary('ListTaskPushNotificationConfigs', { taskId: 'no-such-task' }),
      () => p.client.unary('DeleteTaskPushNotificationConfig', { taskId: 'no-such-task', id: 'c1' }),
    ];
    for (const call of calls) expect((await p.error(call)).code).toBe(-32001);
  }),
  requirement('push-config-get-missing', '3.1.8', 'GetTaskPushNotificationConfig of a config that does not exist is TaskNotFound (-32001)', async (h) => {
    const p = await h.withService(pushServiceOptions());
    const task = await p.send('quote');
    expect((await p.error(p.client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: 'never-created' }))).code).toBe(-32001);
  }),
  requirement('push-config-list', '3.1.9', 'ListTaskPushNotificationConfigs returns every config of the task and only those', async (h) => {
    const p = await h.withService(pushServiceOptions());
    const task = await p.send('quote');
    const other = await p.send('quote');
    for (const id of ['c1', 'c2', 'c3']) await p.client.unary('CreateTaskPushNotificationConfig', { taskId: task.id, id, url: `${HOOK}/${id}` });
    await p.client.unary('CreateTaskPushNotificationConfig', { taskId: other.id, id: 'elsewhere', url: HOOK });
    const listed = await p.client.unary('ListTaskPushNotificationConfigs', { taskId: task.id });
    expect(listed.configs.map((c) => c.id).sort()).toEqual(['c1', 'c2', 'c3']);
    expect(listed.configs.every((c) => c.taskId === task.id)).toBe(true);
  }),
  requirement('push-config-delete-idempotent', '3.1.10', 'DeleteTaskPushNotificationConfig removes the config, and deleting it again succeeds', async (h) => {
    const p = await h.withService(pushServiceOptions());
    const task = await p.send('quote');
    const created = await p.client.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: HOOK });
    const ref = { taskId: task.id, id: created.id! };
    await p.client.unary('DeleteTaskPushNotificationConfig', ref);
    await p.client.unary('DeleteTaskPushNotificationConfig', ref);
    expect((await p.error(p.client.unary('GetTaskPushNotificationConfig', ref))).code).toBe(-32001);
    expect((await p.client.unary('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toEqual([]);
  }),
  requirement('push-config-scoped', '13.1', "another caller's task and its push configs are TaskNotFound (-32001)", async (h) => {
    const p = await h.withService(pushServiceOptions());
    const owner = { principal: { id: 'someone-else' } };
    const sent = await p.service.unary('SendMessage', { message: userMessage('quote') }, owner);
    const taskId = 'task' in sent ? sent.task.id : '';
    const theirs = await p.service.unary('CreateTaskPushNotificationConfig', { taskId, url: HOOK }, owner);
    const ref = { taskId, id: theirs.id! };
    const calls = [
      () => p.client.unary('CreateTaskPushNotificationConfig', { taskId, url: HOOK }),
      () => p.client.unary('GetTaskPushNotificationConfig', ref),
      () => p.client.unary('ListTaskPushNotificationConfigs', { taskId }),
      () => p.client.unary('DeleteTaskPushNotificationConfig', ref),
    ];
    for (const call of calls) expect((await p.error(call)).code).toBe(-32001);
    expect(await p.service.unary('GetTaskPushNotificationConfig', ref, owner)).toEqual(theirs);
  }),
  requirement('push-url-guard', '13.2', 'a webhook URL on a loopback, private or cloud-metadata address is refused with InvalidParams (-32602) saying why', async (h) => {
    const p = await h.withService(pushServiceOptions(webhookDelivery()));
    const task = await p.send('quote');
    const cases = [
      ['http://127.0.0.1:9/hook', 'loopback'],
      ['http://10.0.0.1/hook', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'cloud metadata'],
    ] as const;
    for (const [url, kind] of cases) {
      const error = await p.error(p.client.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url }));
      expect(error.code, url).toBe(-32602);
      expect(error.message).toContain(`${kind} address`);
    }
    expect((await p.client.unary('ListTaskPushNotificationConfigs', { taskId: task.id })).configs).toEqual([]);
  }),
  requirement('push-send-delivers', '4.3.3', "a config in SendMessage gets every task event POSTed as a StreamResponse, in order, with the config's Authorization", async (h) => {
    const receiver = await startWebhookReceiver();
    try {
      const delivery = webhookDelivery({ allow: ['127.0.0.1'] });
      const p = await h.withService(pushServiceOptions(delivery));
      const authentication = { scheme: 'Bearer', credentials: 'hook-secret' };
      const sent = await p.client.unary('SendMessage', {
        message: userMessage('slow 2 1'),
        configuration: { taskPushNotificationConfig: { url: `${receiver.url}/hook`, authentication } },
      });
      if (!('task' in sent)) throw new Error('expected a task');
      const taskId = sent.task.id;
      const listed = await p.client.unary('ListTaskPushNotificationConfigs', { taskId });
      expect(listed.configs).toEqual([expect.objectContaining({ taskId, url: `${receiver.url}/hook`, authentication })]);
      await receiver.waitFor((r) => r.accepted().some((n) => 'statusUpdate' in n.body && n.body.statusUpdate.status.state === 'TASK_STATE_COMPLETED'));
      await delivery.idle();
      const events = (await p.service.engine.store.readEvents(taskId, 0)).map((e) => e.event);
      expect(receiver.accepted().map((n) => n.body)).toEqual(events);
      for (const n of receiver.received) {
        expect(n.headers.authorization).toBe('Bearer hook-secret');
        expect(n.headers['content-type']).toBe('application/a2a+json');
      }
    } finally {
      await receiver.close();
    }
  }),
];
