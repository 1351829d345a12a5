// The file push store's one-time sealing step, on real files: secrets in the
// clear and in the legacy format are sealed once and the step is recorded
// beside push.log; lines written back from a pre-upgrade copy of push.log
// afterwards are refused and logged, and nothing reaches the webhook.
import { appendFile, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../agent/agent.js';
import { TaskService } from '../service/task-service.js';
import { FileTaskStore } from '../store/file-store.js';
import { useTempDirs } from '../temp-dirs.js';
import { sealLegacyPushSecrets, startWebhookReceiver } from '../testing.js';
import { PUSH_LOG, PUSH_LOG_FORMAT, pushFrame } from './file-push-log.js';
import { PUSH_SEALED_FILE } from './file-push-sealing.js';
import { FilePushConfigStore } from './file-push-store.js';
import type { StoredPushConfig } from './push-config-store.js';
import { SEQUENCE_HEADER } from './webhook-attempt.js';
import { webhookDelivery, type WebhookDelivery, type WebhookDeliveryOptions } from './webhook-delivery.js';
import type { WebhookReceiver } from './webhook-receiver.js';
import { pushTestCard } from './webhook-test-rig.js';

const tempDir = useTempDirs('taskwire-push-sealing-');
const key = Buffer.alloc(32, 5);
const encryption = { current: 'k', keys: { k: key } };
const authentication = { scheme: 'Bearer', credentials: 'S3CRET-PLAIN' };
const card = pushTestCard('push sealing', 'push secrets sealed once');
const agent: Agent = async (ctx) => void (await ctx.complete('done'));
const headerBytes = pushFrame({ t: 'h', log: 'push', format: PUSH_LOG_FORMAT }).length;

const plainEntry = (taskId: string, id: string, url: string): StoredPushConfig => ({ owner: 'alice', delivered: 0, config: { taskId, id, url, authentication } });
/** A config as an earlier release sealed it (task and config only), as one push.log record. */
const legacyFrame = (taskId: string, url: string) =>
  pushFrame({ t: 'p', e: { owner: 'alice', delivered: 0, config: sealLegacyPushSecrets({ taskId, id: 'legacy', url, token: 'S3CRET-LEGACY' }, 'k', key) } });

/** A webhook receiver and a FileTaskStore on a fresh directory, holding `count` finished tasks of alice's; all closed after `run`. */
async function onFileTasks(count: number, run: (setup: { directory: string; hooks: WebhookReceiver; tasks: FileTaskStore; ids: string[] }) => Promise<void>): Promise<void> {
  const directory = await tempDir();
  const hooks = await startWebhookReceiver();
  const tasks = await FileTaskStore.open(directory);
  const cleanups: (() => Promise<void>)[] = [() => hooks.close(), () => tasks.close()];
  try {
    const ids: string[] = [];
    const plain = new TaskService({ store: tasks, agent, card });
    for (let i = 0; i < count; i++) {
      const sent = await plain.unary('SendMessage', { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } }, { principal: { id: 'alice' } });
      if (!('task' in sent)) throw new Error('expected a task');
      ids.push(sent.task.id);
    }
    await plain.close();
    await run({ directory, hooks, tasks, ids });
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** A service delivering the configs of `store` to `run` (closed with the store after it): it owes each config every event after its cursor. */
async function serving(tasks: FileTaskStore, store: FilePushConfigStore, logger: WebhookDeliveryOptions['logger'], run: (delivery: WebhookDelivery) => Promise<void>): Promise<void> {
  const delivery = webhookDelivery({ allow: ['127.0.0.1'], timeoutMs: 5_000, logger });
  const service = new TaskService({ store: tasks, agent, card, push: { store, delivery } });
  try {
    await run(delivery);
  } finally {
    await service.close();
    await store.close();
  }
}

/** Resolves once `hooks` got the last event of `taskId` at `path`. */
async function lastEventReceived(hooks: WebhookReceiver, tasks: FileTaskStore, taskId: string, path: string): Promise<void> {
  const last = (await tasks.get(taskId))!.lastSequence;
  await hooks.waitFor((r) => r.received.some((n) => n.path === path && Number(n.headers[SEQUENCE_HEADER]) === last));
}

describe('FilePushConfigStore: push secrets sealed once per directory', () => {
  it('the first open with a key seals plaintext and legacy values, compacts them out of the log and records the step; later opens never repeat it', async () => {
    const directory = await tempDir();
    const log = join(directory, PUSH_LOG);
    const marker = join(directory, PUSH_SEALED_FILE);
    const before = await FilePushConfigStore.open({ directory });
    await before.put(plainEntry('t1', 'plain', 'https://hooks.example.com/plain'));
    await before.close();
    await appendFile(log, legacyFrame('t2', 'https://hooks.example.com/legacy'));

    const store = await FilePushConfigStore.open({ directory }, { encryption });
    const sealed = await readFile(log, 'latin1');
    expect(sealed).not.toContain('S3CRET');
    expect(sealed).not.toContain('tw1:');
    expect(sealed.match(/"sealed":"tw2:k:/g)).toHaveLength(2);
    expect(JSON.parse(await readFile(marker, 'utf8'))).toMatchObject({ step: 'push-secrets-sealed' });
    expect((await stat(marker)).mode & 0o777).toBe(0o600);
    expect(await store.get('t1', 'plain')).toEqual(plainEntry('t1', 'plain', 'https://hooks.example.com/plain'));
    expect((await store.get('t2', 'legacy'))?.config.token).toBe('S3CRET-LEGACY');
    await store.close();

    // After the step, a plaintext line (say, from a process without the option): left as it is, never sealed, refused.
    await appendFile(log, pushFrame({ t: 'p', e: plainEntry('t3', 'late', 'https://hooks.example.com/late') }));
    const files = { log: await readFile(log), marker: await readFile(marker) };
    const reopened = await FilePushConfigStore.open({ directory }, { encryption });
    expect(await readFile(log)).toEqual(files.log);
    expect(await readFile(marker)).toEqual(files.marker);
    const error = await reopened.get('t3', 'late').then(() => undefined, (e: Error) => e);
    expect(error?.message).toMatch(/stored without encryption, written after this directory's one-time sealing step.*set the config again/);
    expect(error?.message).toContain(`delete ${marker} and reopen the store`);
    expect(error?.message).not.toContain('S3CRET');
    expect(await reopened.get('t1', 'plain')).toEqual(plainEntry('t1', 'plain', 'https://hooks.example.com/plain'));
    await reopened.close();

    // The repair the message names, for a log the operator trusts: without the marker, the next open seals it once more.
    await unlink(marker);
    const vouched = await FilePushConfigStore.open({ directory }, { encryption });
    expect(await readFile(log, 'latin1')).not.toContain('S3CRET');
    expect(await vouched.get('t3', 'late')).toEqual(plainEntry('t3', 'late', 'https://hooks.example.com/late'));
    await vouched.close();
    expect(JSON.parse(await readFile(marker, 'utf8'))).toMatchObject({ step: 'push-secrets-sealed' });
  });

  it('lines written back from a pre-upgrade copy of push.log after the step are refused and logged, and nothing reaches the webhook', { timeout: 60_000 }, () =>
    onFileTasks(3, async ({ directory, hooks, tasks, ids }) => {
      const log = join(directory, PUSH_LOG);
      // Before the upgrade: a config stored in the clear and one an earlier release sealed; a copy of push.log is kept.
      const before = await FilePushConfigStore.open(tasks);
      await before.put(plainEntry(ids[0]!, 'plain', `${hooks.url}/plain`));
      await before.close();
      await appendFile(log, legacyFrame(ids[1]!, `${hooks.url}/legacy`));
      const backup = await readFile(log);

      // The upgrade seals both; a config set afterwards is sealed as it is written.
      const upgraded = await FilePushConfigStore.open(tasks, { encryption });
      await upgraded.put({ owner: 'alice', delivered: 0, config: { taskId: ids[2]!, id: 'fresh', url: `${hooks.url}/fresh`, token: 'fresh-token' } });
      await upgraded.close();
      expect(await readFile(log, 'latin1')).not.toContain('S3CRET');

      // The backup's records written back after the step: every event of both tasks is owed to them again.
      await appendFile(log, backup.subarray(headerBytes));
      const errors: string[] = [];
      const logger = { warn: () => undefined, error: (fields: Record<string, unknown>) => void errors.push(String(fields.error)) };
      const store = await FilePushConfigStore.open(tasks, { encryption });
      await serving(tasks, store, logger, async (delivery) => {
        // The config set after the upgrade is delivered in full (the store keeps working); the two written back are not.
        await lastEventReceived(hooks, tasks, ids[2]!, '/fresh');
        await delivery.idle();
        expect(new Set(hooks.received.map((n) => n.path))).toEqual(new Set(['/fresh']));
        expect(hooks.received.every((n) => n.headers['x-a2a-notification-token'] === 'fresh-token')).toBe(true);
        expect(errors.join('\n')).toMatch(/push config plain .* stored without encryption, written after this directory's one-time sealing step/);
        expect(errors.join('\n')).toMatch(/push config legacy .* sealed by an earlier release, written after this directory's one-time sealing step/);
        expect(errors.join('\n')).not.toContain('S3CRET');
        await expect(store.get(ids[0]!, 'plain')).rejects.toThrow(/nothing is sent; set the config again/);
        // Read as it was written back: never sealed by this open.
        expect(await readFile(log, 'latin1')).toContain('S3CRET-PLAIN');
      });
    }));

  it('without encryption nothing changes: no step, no marker, secrets kept and delivered as given', { timeout: 60_000 }, () =>
    onFileTasks(1, async ({ directory, hooks, tasks, ids }) => {
      const first = await FilePushConfigStore.open(tasks);
      await first.put(plainEntry(ids[0]!, 'plain', `${hooks.url}/plain`));
      await first.close();
      const log = await readFile(join(directory, PUSH_LOG));
      expect(log.toString('latin1')).toContain('S3CRET-PLAIN');
      const store = await FilePushConfigStore.open(tasks);
      expect(await readFile(join(directory, PUSH_LOG))).toEqual(log);
      await expect(stat(join(directory, PUSH_SEALED_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
      await serving(tasks, store, undefined, async () => {
        await lastEventReceived(hooks, tasks, ids[0]!, '/plain');
        expect(hooks.received[0]?.headers.authorization).toBe('Bearer S3CRET-PLAIN');
      });
    }));
});
