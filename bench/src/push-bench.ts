/**
 * Issue 7's benchmark: push notifications end to end. N `echo` tasks, each
 * sent with a webhook config, through the in-process TaskService; a bare
 * node:http receiver on 127.0.0.1 answers 204. Reports sends per second
 * without push and with push (the cost of the wiring and the config write),
 * and notifications delivered per second until the delivery is idle, for
 * the memory stores and the file stores (fsync on).
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/push-bench.ts [N] [concurrency]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built
 *   packages; add --conditions=@taskwire/source to measure the TypeScript sources instead)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryPushConfigStore, createMemoryTaskStore, TaskService, type PushConfigStore, type TaskStore } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { FilePushConfigStore, webhookDelivery } from '@taskwire/core/push';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';

const N = Number(process.argv[2] ?? 5_000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const card = referenceAgentCard([{ url: 'memory://bench', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
const pushCard = { ...card, capabilities: { ...card.capabilities, pushNotifications: true } };

let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

async function drive(service: TaskService, count: number, withHook: boolean): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const configuration = withHook ? { taskPushNotificationConfig: { url: hook, authentication: { scheme: 'Bearer', credentials: 'b' } } } : undefined;
      const result = await service.unary('SendMessage', {
        message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: `echo hello ${i}` }] },
        ...(configuration && { configuration }),
      });
      if (!('task' in result) || result.task.status.state !== 'TASK_STATE_COMPLETED') throw new Error('echo did not complete');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return count / ((performance.now() - started) / 1000);
}

async function measure(name: string, open: () => Promise<{ tasks: TaskStore; configs: PushConfigStore; close: () => Promise<void> }>) {
  const plain = await open();
  const without = new TaskService({ store: plain.tasks, agent: referenceAgent, card });
  const sendsWithout = await drive(without, N, false);
  await without.close();
  await plain.close();

  const stores = await open();
  const delivery = webhookDelivery({ allow: ['127.0.0.1'], concurrency: 64 });
  const service = new TaskService({ store: stores.tasks, agent: referenceAgent, card: pushCard, push: { store: stores.configs, delivery } });
  received = 0;
  const started = performance.now();
  const sendsWith = await drive(service, N, true);
  await service.idle();
  await delivery.idle();
  const seconds = (performance.now() - started) / 1000;
  const { delivered, failures } = delivery.stats();
  if (delivered !== received || failures !== 0) throw new Error(`delivered ${delivered}, received ${received}, failures ${failures}`);
  await service.close();
  await stores.close();
  return { name, sendsWithout, sendsWith, notifications: delivered, perSecond: delivered / seconds };
}

const results = [
  await measure('memory stores', async () => {
    const tasks = createMemoryTaskStore({ maxTasks: Infinity });
    const configs = createMemoryPushConfigStore();
    return { tasks, configs, close: async () => (await configs.close(), await tasks.close()) };
  }),
  await measure('file stores (fsync)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-push-bench-'));
    const tasks = await FileTaskStore.open(dir);
    const configs = await FilePushConfigStore.open(tasks);
    return {
      tasks,
      configs,
      close: async () => {
        await configs.close();
        await tasks.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }),
];
receiver.close();

console.log(`push notifications, ${N} echo tasks, concurrency ${CONCURRENCY}, node ${process.version}`);
for (const r of results) {
  console.log(
    `${r.name.padEnd(20)} sends/s without push ${r.sendsWithout.toFixed(0).padStart(6)}  with push ${r.sendsWith.toFixed(0).padStart(6)}  ` +
      `notifications ${r.notifications}  delivered/s ${r.perSecond.toFixed(0)} (end to end, until idle)`,
  );
}
