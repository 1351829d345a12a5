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

/** What `sendWithRetries` needs, around a receiver answering `status` at `/hook` of config `c` of task `t`, with one slot. */
async function sendDeps(status: number): Promise<SendDeps & { counters: SendDeps['counters'] }> {
  const started = await startWebhookReceiver(() => status);
  receiver = started;
  const entry: StoredPushConfig = { owner: '', delivered: 0, config: { id: 'c', taskId: 't', url: `${started.url}/hook` } };
  const { clock } = instantClock();
  return {
    configs: { get: async () => entry } as unknown as PushConfigStore,
    attempt: { guard: createWebhookGuard({ allow: ['127.0.0.1'] }), agents, timeoutMs: 5_000, userAgent: 'test', stop: new AbortController().signal, now: () => clock.now() },
    slots: new ConcurrencyLimit(1),
    policy: retryPolicy({ maxAttempts: 5, initialDelayMs: 10 }),
    clock,
    random: () => 0.5,
    counters: { attempts: 0, delivered: 0, failures: 0 },
    closed: () => false,
  };
}

const event = { sequence: 1, event: { statusUpdate: { taskId: 't', contextId: 'x', status: { state: 'TASK_STATE_WORKING' } } } } as unknown as StoredEvent;

it('stops retrying an event, before the next attempt, once the delivery no longer holds the config\'s claim', async () => {
  const deps = await sendDeps(503);
  // The claim is lost (not renewed for nearly its time to live, or taken) after the first attempt (checked before it and once it has its slot).
  let checks = 0;
  const result = await sendWithRetries(deps, 't', 'c', event, true, () => ++checks <= 2);
  expect(result).toEqual({ kind: 'stopped' });
  expect(deps.counters.attempts).toBe(1);
  expect(receiver!.received).toHaveLength(1);
});

it('checks the claim again once an attempt got its slot: a claim lost while it waited for one sends nothing', async () => {
  const deps = await sendDeps(200);
  // Every slot is busy: the attempt waits, and meanwhile the claim is lost (another process took it and delivers later events).
  await deps.slots.acquire();
  let held = true;
  let asked = 0;
  const sending = sendWithRetries(deps, 't', 'c', event, true, () => {
    asked++;
    return held;
  });
  while (asked === 0) await new Promise((resolve) => setImmediate(resolve));
  held = false;
  deps.slots.release();
  expect(await sending).toEqual({ kind: 'stopped' });
  expect(deps.counters.attempts).toBe(0);
  expect(receiver!.received).toHaveLength(0);
});
