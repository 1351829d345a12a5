// Run by `bun test` with bun-vitest-shim.ts preloaded (drivers.test.ts): core's
// task, push and sealed-secret conformance suites on bun:sqlite, in database files.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushSecretBox } from '@taskwire/core/push';
import { runPushConfigStoreConformance, runPushEncryptionConformance, runTaskStoreConformance } from '@taskwire/core/testing';
import { bunSqlite } from '../src/bun.js';
import { createSqlitePushConfigStore, createSqliteTaskStore, type SqliteTaskStoreOptions } from '../src/index.js';

async function taskHarness(options: Omit<SqliteTaskStoreOptions, 'driver'> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-bun-'));
  const file = join(dir, 'tasks.db');
  return {
    store: await createSqliteTaskStore({ driver: await bunSqlite(file), ...options }),
    reopen: async () => createSqliteTaskStore({ driver: await bunSqlite(file), ...options }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

runTaskStoreConformance('SqliteTaskStore on bun:sqlite', () => taskHarness(), {
  durable: true,
  retention: (maxEventsPerTask) => taskHarness({ maxEventsPerTask }),
  keepsTrace: true,
});

runPushConfigStoreConformance(
  'SqlitePushConfigStore on bun:sqlite',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-bun-push-'));
    const file = join(dir, 'tasks.db');
    return {
      store: await createSqlitePushConfigStore({ driver: await bunSqlite(file), closeDriver: true }),
      reopen: async () => createSqlitePushConfigStore({ driver: await bunSqlite(file), closeDriver: true }),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  { durable: true },
);

runPushEncryptionConformance('SqlitePushConfigStore on bun:sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-bun-sealed-'));
  const file = join(dir, 'tasks.db');
  const RAW = "SELECT (SELECT coalesce(group_concat(config, ' '), '') FROM taskwire_push_configs) || (SELECT coalesce(group_concat(letter, ' '), '') FROM taskwire_push_dead_letters) AS raw";
  let current: Awaited<ReturnType<typeof bunSqlite>> | undefined;
  return {
    open: async (encryption) => createSqlitePushConfigStore({ driver: (current = await bunSqlite(file)), encryption: pushSecretBox(encryption), closeDriver: true }),
    raw: async () => {
      const open = await current!.query(RAW).catch(() => undefined);
      if (open) return open.rows[0]!.raw as string;
      const driver = await bunSqlite(file);
      try {
        return (await driver.query(RAW)).rows[0]!.raw as string;
      } finally {
        await driver.close();
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
