import { randomBytes } from 'node:crypto';
import { pushSecretBox } from '@taskwire/core/push';
import { sealLegacyPushSecrets } from '@taskwire/core/testing';
import { describe, expect, it } from 'vitest';
import { createSqlitePushConfigStore, PUSH_SECRETS_SEALED } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';

const sealer = (key = randomBytes(32)) => pushSecretBox({ current: 'k1', keys: { k1: key } })!;
const config = (id: string) => ({ owner: 'alice', delivered: 0, config: { taskId: 't1', id, url: `https://hooks.example.com/${id}`, token: `secret-${id}` } });

describe('push secrets sealed once per SQLite database', () => {
  it('seals the secrets stored before encryption was on, once; a secret in the clear written after that is refused, never shown', async () => {
    const driver = nodeSqlite(':memory:');
    const box = sealer();
    const before = await createSqlitePushConfigStore({ driver });
    await before.put(config('early'));
    const sealed = await createSqlitePushConfigStore({ driver, encryption: box });
    expect(await sealed.get('t1', 'early')).toEqual(config('early'));
    const raw = async () => (await driver.query('SELECT config FROM taskwire_push_configs ORDER BY config_id')).rows.map((r) => r.config as string).join(' ');
    expect(await raw()).not.toMatch(/secret-early/);
    expect((await driver.query('SELECT key FROM taskwire_meta WHERE key = ?1', [PUSH_SECRETS_SEALED])).rows).toHaveLength(1);
    // A row written back in the clear (from a backup, or by a process without the option): refused, its secret not in the message.
    await driver.query('INSERT INTO taskwire_push_configs (task_id, config_id, owner, delivered, config) VALUES (?1, ?2, ?3, 0, ?4)', ['t1', 'late', 'alice', JSON.stringify(config('late').config)]);
    const reopened = await createSqlitePushConfigStore({ driver, encryption: box });
    const error = await reopened.get('t1', 'late').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/without encryption.*set the config again/);
    expect((error as Error).message).not.toMatch(/secret-late/);
    expect(await reopened.get('t1', 'early')).toEqual(config('early'));
    await driver.close();
  });

  it('refuses a value sealed by an earlier release (never resealed here), saying how to repair it', async () => {
    const driver = nodeSqlite(':memory:');
    const key = randomBytes(32);
    const store = await createSqlitePushConfigStore({ driver, encryption: sealer(key) });
    const legacy = sealLegacyPushSecrets(config('old').config, 'k1', key);
    await driver.query('INSERT INTO taskwire_push_configs (task_id, config_id, owner, delivered, config) VALUES (?1, ?2, ?3, 0, ?4)', ['t1', 'old', 'alice', JSON.stringify(legacy)]);
    const error = await store.get('t1', 'old').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/sealed by an earlier release.*nothing is sent; set the config again to repair it/);
    expect((error as Error).message).not.toMatch(/reseals/);
    await driver.close();
  });
});
