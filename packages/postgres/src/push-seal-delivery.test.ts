import { TaskService } from '@taskwire/core';
import { webhookDelivery } from '@taskwire/core/push';
import { pushTestCard, startWebhookReceiver } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { createPostgresPushConfigStore } from './push-store.js';
import { holdOrComplete, userMessage } from './push-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore } from './task-store.js';

const card = pushTestCard('sealed push', 'sealed push secrets test');
const agent = holdOrComplete;
const message = userMessage;

/** Closes each in turn (the service before its stores, the stores before the receivers). */
async function closeInOrder(...things: { close(): Promise<unknown> }[]): Promise<void> {
  for (const thing of things) await thing.close();
}

describePostgres('delivery of a sealed push config whose URL was changed in the database', (db) => {
  it('sends nothing to the new URL and logs the refusal', async () => {
    const schema = await db.schema();
    const good = await startWebhookReceiver();
    const evil = await startWebhookReceiver();
    let refused!: (fields: Record<string, unknown>) => void;
    const refusal = new Promise<Record<string, unknown>>((resolve) => (refused = resolve));
    const logger = { warn: () => undefined, error: (fields: Record<string, unknown>) => refused(fields) };
    const tasks = await createPostgresTaskStore({ pool: db.pool, schema });
    const configs = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption: { current: 'k', keys: { k: Buffer.alloc(32, 3) } } });
    const delivery = webhookDelivery({ allow: ['127.0.0.1'], timeoutMs: 5_000, logger });
    const service = new TaskService({ store: tasks, agent, card, push: { store: configs, delivery } });
    try {
      const authentication = { scheme: 'Bearer', credentials: 'S3CRET-CREDENTIALS' };
      const first = await service.unary('SendMessage', { message: message('hold'), configuration: { taskPushNotificationConfig: { url: `${good.url}/hook`, authentication } } }, { principal: { id: 'alice' } });
      if (!('task' in first)) throw new Error('expected a task');
      const taskId = first.task.id;
      await delivery.idle();
      expect(good.accepted().length).toBeGreaterThan(0);
      expect(good.received[0]!.headers.authorization).toBe('Bearer S3CRET-CREDENTIALS');

      await db.pool.query(`UPDATE ${quoteSchema(schema)}.push_configs SET config = replace(config, $1, $2)`, [good.url, evil.url]);
      await service.unary('SendMessage', { message: message('go', taskId) }, { principal: { id: 'alice' } });
      // Whichever comes first: the refusal, or (without the binding) the secret reaching the new URL.
      await Promise.race([refusal, evil.waitFor((r) => r.received.length > 0)]);
      await delivery.idle();
      expect(evil.received).toEqual([]);
      expect(String((await refusal).error)).toMatch(/URL or owner was changed/);
    } finally {
      await closeInOrder(service, configs, tasks, good, evil);
      await db.drop(schema);
    }
  });

  it('a config whose secrets no longer open stops only its own delivery: the others owed at start-up are sent', async () => {
    const schema = await db.schema();
    const good = await startWebhookReceiver();
    const evil = await startWebhookReceiver();
    const encryption = { current: 'k', keys: { k: Buffer.alloc(32, 3) } };
    const tasks = await createPostgresTaskStore({ pool: db.pool, schema });
    // Two finished tasks, made without push: their configs, added below, are owed every event.
    const plain = new TaskService({ store: tasks, agent, card });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const sent = await plain.unary('SendMessage', { message: message('go') }, { principal: { id: 'alice' } });
      if (!('task' in sent)) throw new Error('expected a task');
      ids.push(sent.task.id);
    }
    await plain.close();
    const configs = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption });
    const authentication = { scheme: 'Bearer', credentials: 'S3CRET-CREDENTIALS' };
    // The tampered config sorts first: a start-up that reads every config whole stops at it.
    await configs.put({ owner: 'alice', delivered: 0, config: { taskId: ids[0]!, id: 'a', url: `${good.url}/${ids[0]}`, authentication } });
    await configs.put({ owner: 'alice', delivered: 0, config: { taskId: ids[1]!, id: 'b', url: `${good.url}/${ids[1]}`, authentication } });
    const first = ids[0]! < ids[1]! ? ids[0]! : ids[1]!;
    await db.pool.query(`UPDATE ${quoteSchema(schema)}.push_configs SET config = replace(config, $1, $2) WHERE task_id = $3`, [good.url, evil.url, first]);
    const errors: string[] = [];
    const logger = { warn: () => undefined, error: (fields: Record<string, unknown>) => void errors.push(String(fields.error)) };
    const delivery = webhookDelivery({ allow: ['127.0.0.1'], timeoutMs: 5_000, logger });
    const service = new TaskService({ store: tasks, agent, card, push: { store: configs, delivery } });
    try {
      const other = ids.find((id) => id !== first)!;
      await good.waitFor((r) => r.accepted().some((n) => n.path === `/${other}`));
      await delivery.idle();
      expect(good.accepted().every((n) => n.path === `/${other}`)).toBe(true);
      expect(good.accepted()[0]!.headers.authorization).toBe('Bearer S3CRET-CREDENTIALS');
      expect(evil.received).toEqual([]);
      expect(errors.join('\n')).toMatch(/URL or owner was changed/);
    } finally {
      await closeInOrder(service, configs, tasks, good, evil);
      await db.drop(schema);
    }
  });
});

