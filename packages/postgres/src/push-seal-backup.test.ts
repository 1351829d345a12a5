// The one-time sealing step of push secrets, on a real PostgreSQL: rows
// sealed by an earlier release and rows stored before encryption was on are
// sealed once and the step is recorded; the same rows written back from a
// pg_dump afterwards are refused and logged, and nothing is delivered.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TaskService } from '@taskwire/core';
import { webhookDelivery } from '@taskwire/core/push';
import { pushTestCard, sealLegacyPushSecrets, startWebhookReceiver } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { createPostgresPushConfigStore, SEALED_STEP } from './push-store.js';
import { holdOrComplete as agent, userMessage } from './push-test-kit.js';
import { quoteSchema } from './schema-name.js';
import { createPostgresTaskStore } from './task-store.js';

const run = promisify(execFile);
const PGBIN = process.env.PGBIN ?? '/usr/lib/postgresql/15/bin';
const key = Buffer.alloc(32, 7);
const encryption = { current: 'k', keys: { k: key } };
const card = pushTestCard('push backup', 'push secrets written back from a backup');

describePostgres('push secrets sealed once, at the upgrade', (db) => {
  it('legacy and plaintext rows are sealed once and the step recorded; written back from a dump later, they are refused, logged, never delivered', { timeout: 60_000 }, async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const dir = await mkdtemp(join(tmpdir(), 'push-backup-'));
    const hooks = await startWebhookReceiver();
    const tasks = await createPostgresTaskStore({ pool: db.pool, schema });
    try {
      // Two finished tasks: push configs added below are owed every event at start-up.
      const plain = new TaskService({ store: tasks, agent, card });
      const ids: string[] = [];
      for (const _ of [1, 2]) {
        const sent = await plain.unary('SendMessage', { message: userMessage('go') }, { principal: { id: 'alice' } });
        if (!('task' in sent)) throw new Error('expected a task');
        ids.push(sent.task.id);
      }
      await plain.close();
      const authentication = { scheme: 'Bearer', credentials: 'S3CRET-CREDENTIALS' };
      // Before encryption was on: a plaintext row. From the earlier release: a legacy-sealed one.
      const unencrypted = await createPostgresPushConfigStore({ pool: db.pool, schema });
      await unencrypted.put({ owner: 'alice', delivered: 0, config: { taskId: ids[0]!, id: 'plain', url: `${hooks.url}/plain`, authentication } });
      await unencrypted.close();
      const legacy = sealLegacyPushSecrets({ taskId: ids[1]!, id: 'legacy', url: `${hooks.url}/legacy`, authentication }, 'k', key);
      await db.pool.query(`INSERT INTO ${S}.push_configs (task_id, config_id, owner, delivered, config) VALUES ($1, 'legacy', 'alice', 0, $2)`, [ids[1], JSON.stringify(legacy)]);
      await db.pool.query(`UPDATE ${S}.push_configs SET delivered = 1000`); // nothing owed yet: only the write-back below makes them owed
      const dump = join(dir, 'push-configs.sql');
      await run(`${PGBIN}/pg_dump`, ['--data-only', '--column-inserts', `--table=${S}.push_configs`, '--file', dump, db.url]);

      // The upgrade: the store seals both, bound to owner and URL, and records the step.
      const upgraded = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption });
      const { rows } = await db.pool.query<{ config: string }>(`SELECT config FROM ${S}.push_configs ORDER BY config_id`);
      expect(rows.map((r) => JSON.parse(r.config).sealed?.slice(0, 5))).toEqual(['tw2:k', 'tw2:k']);
      expect(rows.map((r) => r.config).join()).not.toContain('S3CRET');
      expect((await db.pool.query(`SELECT step FROM ${S}.taskwire_contract_steps WHERE step = $1`, [SEALED_STEP])).rowCount).toBe(1);
      expect((await upgraded.get(ids[0]!, 'plain'))?.config.authentication).toEqual(authentication);
      expect(await upgraded.resealLegacySecrets()).toBe(0);
      await upgraded.close();

      // The rows written back from the dump, owed every event again: never resealed, refused, logged, nothing sent.
      await db.pool.query(`DELETE FROM ${S}.push_configs`);
      await run(`${PGBIN}/psql`, ['--quiet', '--set', 'ON_ERROR_STOP=1', '--file', dump, db.url]);
      await db.pool.query(`UPDATE ${S}.push_configs SET delivered = 0`);
      const errors: string[] = [];
      let logged!: () => void;
      const bothLogged = new Promise<void>((resolve) => (logged = resolve));
      const logger = {
        warn: () => undefined,
        error: (fields: Record<string, unknown>) => {
          errors.push(String(fields.error));
          if (errors.length >= 2) logged();
        },
      };
      const store = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption });
      const delivery = webhookDelivery({ allow: ['127.0.0.1'], timeoutMs: 5_000, logger });
      const service = new TaskService({ store: tasks, agent, card, push: { store, delivery } });
      try {
        // Whichever comes first: both refusals, or (without the one-time step) a delivery with the secret.
        await Promise.race([bothLogged, hooks.waitFor((r) => r.received.length > 0)]);
        await delivery.idle();
        expect(hooks.received).toEqual([]);
        expect(errors.join('\n')).toMatch(/sealed by an earlier release, written after this schema's one-time sealing step/);
        expect(errors.join('\n')).toMatch(/stored without encryption, written after this schema's one-time sealing step/);
        expect(errors.join('\n')).not.toContain('S3CRET');
        await expect(store.get(ids[0]!, 'plain')).rejects.toThrow(/stored without encryption/);
        expect(await store.resealLegacySecrets()).toBe(0);
        const after = await db.pool.query<{ config: string }>(`SELECT config FROM ${S}.push_configs WHERE config LIKE '%tw2:%'`);
        expect(after.rowCount).toBe(0);
      } finally {
        await service.close();
        await store.close();
      }
    } finally {
      await tasks.close();
      await hooks.close();
      await rm(dir, { recursive: true, force: true });
      await db.drop(schema);
    }
  });
});
