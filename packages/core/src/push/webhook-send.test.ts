import { afterEach, expect, it } from 'vitest';
import type { StoredEvent } from '../store/task-store.js';
import { retryPolicy } from './backoff.js';
import { ConcurrencyLimit } from './concurrency-limit.js';
import type { PushConfigStore, StoredPushConfig } from './push-config-store.js';
import { createWebhookGuard } from './webhook-guard.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { webhookAgents } from './webhook-request.js';
import { sendWithRetries, type SendDeps } from './webhook-send.js';
import { instantClock } from './webhook-test-rig.js';

let receiver: WebhookReceiver | undefined;
const agents = webhookAgents();
afterEach(async () => {
  await receiver?.close();
  agents.destroy();
});

it('stops retrying an event, before the next attempt, once the delivery no longer holds the config\'s claim', async () => {
  receiver = await startWebhookReceiver(() => 503);
  const entry: StoredPushConfig = { owner: '', delivered: 0, config: { id: 'c', taskId: 't', url: `${receiver.url}/hook` } };
  const { clock } = instantClock();
  const counters = { attempts: 0, delivered: 0, failures: 0 };
  const deps: SendDeps = {
    configs: { get: async () => entry } as unknown as PushConfigStore,
    attempt: { guard: createWebhookGuard({ allow: ['127.0.0.1'] }), agents, timeoutMs: 5_000, userAgent: 'test', stop: new AbortController().signal, now: () => clock.now() },
    slots: new ConcurrencyLimit(1),
    policy: retryPolicy({ maxAttempts: 5, initialDelayMs: 10 }),
    clock,
    random: () => 0.5,
    counters,
    closed: () => false,
  };
  const event = { sequence: 1, event: { statusUpdate: { taskId: 't', contextId: 'x', status: { state: 'TASK_STATE_WORKING' } } } } as unknown as StoredEvent;
  // The claim is lost (not renewed for nearly its time to live, or taken) after the first attempt (checked before it and once it has its slot).
  let checks = 0;
  const result = await sendWithRetries(deps, 't', 'c', event, true, () => ++checks <= 2);
  expect(result).toEqual({ kind: 'stopped' });
  expect(counters.attempts).toBe(1);
  expect(receiver.received).toHaveLength(1);
});

it('checks the claim again once an attempt got its slot: a claim lost while it waited for one sends nothing', async () => {
  receiver = await startWebhookReceiver(() => 200);
  const entry: StoredPushConfig = { owner: '', delivered: 0, config: { id: 'c', taskId: 't', url: `${receiver.url}/hook` } };
  const { clock } = instantClock();
  const counters = { attempts: 0, delivered: 0, failures: 0 };
  const slots = new ConcurrencyLimit(1);
  const deps: SendDeps = {
    configs: { get: async () => entry } as unknown as PushConfigStore,
    attempt: { guard: createWebhookGuard({ allow: ['127.0.0.1'] }), agents, timeoutMs: 5_000, userAgent: 'test', stop: new AbortController().signal, now: () => clock.now() },
    slots,
    policy: retryPolicy({ maxAttempts: 5, initialDelayMs: 10 }),
    clock,
    random: () => 0.5,
    counters,
    closed: () => false,
  };
  const event = { sequence: 1, event: { statusUpdate: { taskId: 't', contextId: 'x', status: { state: 'TASK_STATE_WORKING' } } } } as unknown as StoredEvent;
  // Every slot is busy: the attempt waits, and meanwhile the claim is lost (another process took it and delivers later events).
  await slots.acquire();
  let held = true;
  let asked = 0;
  const sending = sendWithRetries(deps, 't', 'c', event, true, () => {
    asked++;
    return held;
  });
  while (asked === 0) await new Promise((resolve) => setImmediate(resolve));
  held = false;
  slots.release();
  expect(await sending).toEqual({ kind: 'stopped' });
  expect(counters.attempts).toBe(0);
  expect(receiver.received).toHaveLength(0);
});
