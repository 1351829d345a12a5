import { sealLegacyPushSecrets, testPushConfig } from '@taskwire/core/testing';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { createPostgresPushConfigStore } from './push-store.js';
import { quoteSchema } from './schema-name.js';

const key = Buffer.alloc(32, 5);
const encryption = { current: 'k', keys: { k: key } };
const entry = { ...testPushConfig('t1', 'c1', 0, { token: 'S3CRET-TOKEN' }), owner: 'alice' };

/** What the previous release wrote, as a row's config column. */
const legacySeal = (config: typeof entry.config) => JSON.stringify(sealLegacyPushSecrets(config, 'k', key));

describePostgres('sealed push secrets bound to owner and URL', (db) => {
  it('refuses to open a row whose url or owner was changed by SQL, never showing the secret', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const store = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption });
    try {
      await store.put(entry);
      expect(await store.get('t1', 'c1')).toEqual(entry);
      await db.pool.query(`UPDATE ${S}.push_configs SET config = replace(config, $1, 'http://127.0.0.1:9/evil')`, [entry.config.url]);
      const error = await store.get('t1', 'c1').then(() => undefined, (e: Error) => e);
      expect(error?.name).toBe('PushSecretError');
      expect(error?.message).toMatch(/URL or owner was changed/);
      expect(error?.message).not.toMatch(/S3CRET/);
      await store.put(entry);
      await db.pool.query(`UPDATE ${S}.push_configs SET owner = 'mallory'`);
      await expect(store.get('t1', 'c1')).rejects.toThrow(/URL or owner was changed/);
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });

  it('reseals rows of the previous format when it first opens, and refuses legacy rows written after, for good', async () => {
    const schema = await db.schema();
    const S = quoteSchema(schema);
    const first = await createPostgresPushConfigStore({ pool: db.pool, schema });
    await first.close();
    const insert = `INSERT INTO ${S}.push_configs (task_id, config_id, owner, delivered, config) VALUES ($1, $2, $3, 0, $4)`;
    await db.pool.query(insert, ['t1', 'c1', 'alice', legacySeal(entry.config)]);
    const store = await createPostgresPushConfigStore({ pool: db.pool, schema, encryption });
    try {
      expect(await store.get('t1', 'c1')).toEqual(entry);
      const { rows } = await db.pool.query(`SELECT config FROM ${S}.push_configs`);
      expect(rows[0].config).toMatch(/"sealed":"tw2:k:/);
      // A legacy row with a changed URL (written by a replica of the previous release mid-upgrade) is refused for delivery until resealed.
      await db.pool.query(insert, ['t1', 'c2', 'alice', legacySeal({ ...entry.config, id: 'c2' }).replace(entry.config.url, 'http://127.0.0.1:9/evil')]);
      await expect(store.get('t1', 'c2')).rejects.toThrow(/sealed by an earlier release/);
      // The reseal ran once, at the upgrade, and is recorded: it never vouches for a row written after it.
      expect(await store.resealLegacySecrets()).toBe(0);
      await expect(store.get('t1', 'c2')).rejects.toThrow(/written after this schema's one-time sealing step/);
    } finally {
      await store.close();
      await db.drop(schema);
    }
  });
});
