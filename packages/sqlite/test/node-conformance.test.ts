import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushSecretBox } from '@taskwire/core/push';
import { runPushConfigStoreConformance, runPushEncryptionConformance, runTaskStoreConformance } from '@taskwire/core/testing';
import { createSqlitePushConfigStore, createSqliteTaskStore, type SqliteTaskStoreOptions } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';

/** A store on a new database file; `reopen` opens the same file again (the previous store closed first by the suite). */
async function taskHarness(options: Omit<SqliteTaskStoreOptions, 'driver'> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-'));
  const file = join(dir, 'tasks.db');
  return {
    store: await createSqliteTaskStore({ driver: nodeSqlite(file), ...options }),
    reopen: () => createSqliteTaskStore({ driver: nodeSqlite(file), ...options }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

runTaskStoreConformance('SqliteTaskStore on node:sqlite', () => taskHarness(), {
  durable: true,
  retention: (maxEventsPerTask) => taskHarness({ maxEventsPerTask }),
  keepsTrace: true,
  readsHead: true,
});

runTaskStoreConformance('SqliteTaskStore on node:sqlite, a snapshot per commit', () => taskHarness({ snapshots: { events: 0 } }), { readsHead: true });

async function pushHarness() {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-push-'));
  const file = join(dir, 'tasks.db');
  return {
    store: await createSqlitePushConfigStore({ driver: nodeSqlite(file), closeDriver: true }),
    reopen: () => createSqlitePushConfigStore({ driver: nodeSqlite(file), closeDriver: true }),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

runPushConfigStoreConformance('SqlitePushConfigStore on node:sqlite', pushHarness, { durable: true });

runPushEncryptionConformance('SqlitePushConfigStore on node:sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'taskwire-sqlite-sealed-'));
  const file = join(dir, 'tasks.db');
  const RAW = "SELECT (SELECT coalesce(group_concat(config, ' '), '') FROM taskwire_push_configs) || (SELECT coalesce(group_concat(letter, ' '), '') FROM taskwire_push_dead_letters) AS raw";
  let current: ReturnType<typeof nodeSqlite> | undefined;
  return {
    open: (encryption) => createSqlitePushConfigStore({ driver: (current = nodeSqlite(file)), encryption: pushSecretBox(encryption), closeDriver: true }),
    // The file is locked to one connection: read through the open store's, or a new one once it closed.
    raw: async () => {
      const open = await current!.query(RAW).catch(() => undefined);
      if (open) return open.rows[0]!.raw as string;
      const driver = nodeSqlite(file);
      try {
        return (await driver.query(RAW)).rows[0]!.raw as string;
      } finally {
        await driver.close();
      }
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});
