import { expect } from 'vitest';
import { requirement } from '../requirement.js';

/** Capability validation: push notifications and the extended card. */
export const capabilityRequirements = [
  requirement('push-not-supported', '3.3.4', 'push config methods answer PushNotificationNotSupported (-32003) without the capability', async (h) => {
    const task = await h.send('quote');
    const calls = [
      () => h.client.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://example.com/hook' }),
      () => h.client.unary('GetTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }),
      () => h.client.unary('ListTaskPushNotificationConfigs', { taskId: task.id }),
      () => h.client.unary('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c1' }),
    ];
    for (const call of calls) expect((await h.error(call)).code).toBe(-32003);
  }),
  requirement('extended-card-unsupported', '3.3.4', 'GetExtendedAgentCard without the capability is UnsupportedOperation (-32004)', async (h) => {
    expect((await h.error(h.client.unary('GetExtendedAgentCard', {}))).code).toBe(-32004);
  }),
];
