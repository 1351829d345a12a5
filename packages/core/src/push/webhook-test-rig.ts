import { afterEach } from 'vitest';
import type { Agent } from '../agent/agent.js';
import type { Message, StreamResponse } from '../schema/index.js';
import type { CallContext } from '../calls.js';
import { TaskService } from '../service/task-service.js';
import { createMemoryTaskStore } from '../store/memory-store.js';
import type { TaskStore } from '../store/task-store.js';
import { inMemoryTransport } from '../transport/in-memory.js';
import type { Clock } from './backoff.js';
import { createMemoryPushConfigStore } from './memory-push-store.js';
import type { PushConfigStore } from './push-config-store.js';
import { SEQUENCE_HEADER } from './webhook-attempt.js';
import type { WebhookDelivery, WebhookDeliveryOptions } from './webhook-delivery.js';
import { webhookDelivery } from './webhook-delivery.js';
import type { ReceivedNotification, WebhookReceiver, WebhookResponder } from './webhook-receiver.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { pushTestCard } from './push-test-card.js';

export { pushTestCard };

/*
 * For the webhook delivery tests (not exported from the package): a service with a memory task
 * store, a memory push store and a delivery on an instant clock, sending to a real receiver.
 */

/** `hold` waits for input; `steps <n>` reports n working steps, an artifact, and completes. */
const agent: Agent = async (ctx) => {
  const steps = /^steps (\d+)$/.exec(ctx.text);
  if (!steps) return ctx.inputRequired('send "steps <n>"');
  for (let i = 1; i <= Number(steps[1]); i++) await ctx.working(`step ${i}`);
  await ctx.artifact({ name: 'result', text: 'all steps done' });
  await ctx.complete('done');
};

/** A clock whose sleeps return at once, recording how long they asked for. */
export function instantClock(): { clock: Clock; waits: number[] } {
  let now = 0;
  const waits: number[] = [];
  return {
    waits,
    clock: {
      now: () => now,
      async sleep(ms, signal) {
        if (signal?.aborted) throw signal.reason;
        waits.push(ms);
        now += ms;
      },
    },
  };
}

/** A user message with `text`. */
export const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });
/** The event sequence number a notification carried. */
export const sequenceOf = (n: Pick<ReceivedNotification, 'headers'>) => Number(n.headers[SEQUENCE_HEADER]);

/** One service wired to a delivery and a receiver (see {@link useWebhookRigs}). */
export interface Rig {
  readonly receiver: WebhookReceiver;
  readonly service: TaskService;
  readonly delivery: WebhookDelivery;
  readonly tasks: TaskStore;
  readonly configs: PushConfigStore;
  readonly waits: number[];
  readonly client: ReturnType<typeof inMemoryTransport>;
}

const cleanups: (() => Promise<void>)[] = [];

/**
 * Call at a test file's top level: registers an afterEach that closes every
 * rig (service, then receiver) and runs every `onCleanup`, newest first.
 */
export function useWebhookRigs(): { rig: typeof rig; onCleanup: (cleanup: () => Promise<void>) => void } {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return { rig, onCleanup: (cleanup) => void cleanups.push(cleanup) };
}

/** A service (agent: `hold` / `steps <n>`) whose delivery allows 127.0.0.1, on an instant clock, with jitter 0.5. */
async function rig(respond?: WebhookResponder, options: WebhookDeliveryOptions = {}, context: CallContext = { principal: { id: 'alice' } }): Promise<Rig> {
  const receiver = await startWebhookReceiver(respond);
  const { clock, waits } = instantClock();
  const tasks = createMemoryTaskStore();
  const configs = createMemoryPushConfigStore();
  const delivery = webhookDelivery({ allow: ['127.0.0.1'], clock, random: () => 0.5, timeoutMs: 5_000, ...options });
  const service = new TaskService({ store: tasks, agent, card: pushTestCard(), push: { store: configs, delivery } });
  cleanups.push(async () => {
    await service.close();
    await receiver.close();
  });
  return { receiver, service, delivery, tasks, configs, waits, client: inMemoryTransport(service, context) };
}

/** Sends `hold` with `config` as the message's push config; resolves the new task's id. */
export async function startTask(r: Rig, config: Record<string, unknown>): Promise<string> {
  const result = await r.client.unary('SendMessage', { message: message('hold'), configuration: { taskPushNotificationConfig: config as never } });
  if (!('task' in result)) throw new Error('expected a task');
  return result.task.id;
}

/** The task's log as notification bodies, from sequence `after + 1`. */
export async function eventsAfter(tasks: TaskStore, taskId: string, after: number): Promise<StreamResponse[]> {
  return (await tasks.readEvents(taskId, after)).map((e) => e.event);
}

