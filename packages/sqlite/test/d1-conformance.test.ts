import { pushSecretBox } from '@taskwire/core/push';
import { runPushConfigStoreConformance, runPushEncryptionConformance, runTaskStoreConformance } from '@taskwire/core/testing';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, vi } from 'vitest';
import { createSqlitePushConfigStore, createSqliteTaskStore, d1Driver, type D1DatabaseLike, type SqliteTaskStoreOptions } from '../src/index.js';

// Core's conformance suites on D1: the store's code runs here, every statement in workerd's D1 (miniflare), a real
// D1 database (drivers.test.ts runs the store itself inside a Worker). The suites want an empty store per test: each
// test gets a D1 database of its own, one binding each, made up front.
// Every statement is a round trip to workerd: the long-stream rules take more than the default 20 s on a loaded machine.
vi.setConfig({ testTimeout: 90_000 });
const BINDINGS = Array.from({ length: 200 }, (_, i) => `DB${i}`);
let mf: Miniflare;
let next = 0;
beforeAll(async () => {
  mf = new Miniflare({ modules: true, script: 'export default { fetch() { return new Response("") } }', d1Databases: BINDINGS, compatibilityDate: '2026-07-01' });
  await mf.ready;
}, 60_000);
afterAll(() => mf?.dispose());

/** A fresh D1 database (one not used by an earlier test). */
async function freshDatabase(): Promise<D1DatabaseLike> {
  const binding = BINDINGS[next++];
  if (binding === undefined) throw new Error('more tests than D1 databases: raise BINDINGS');
  return (await mf.getD1Database(binding)) as unknown as D1DatabaseLike;
}

async function taskHarness(options: Omit<SqliteTaskStoreOptions, 'driver'> = {}) {
  const db = await freshDatabase();
  const open = () => createSqliteTaskStore({ driver: d1Driver(db), ...options });
  return { store: await open(), reopen: open };
}

runTaskStoreConformance('SqliteTaskStore on D1 (miniflare)', () => taskHarness(), {
  durable: true,
  retention: (maxEventsPerTask) => taskHarness({ maxEventsPerTask }),
  keepsTrace: true,
  readsHead: true,
});

runPushConfigStoreConformance(
  'SqlitePushConfigStore on D1 (miniflare)',
  async () => {
    const db = await freshDatabase();
    const open = () => createSqlitePushConfigStore({ driver: d1Driver(db) });
    return { store: await open(), reopen: open };
  },
  { durable: true },
);

runPushEncryptionConformance('SqlitePushConfigStore on D1 (miniflare)', async () => {
  const db = await freshDatabase();
  return {
    open: (encryption) => createSqlitePushConfigStore({ driver: d1Driver(db), encryption: pushSecretBox(encryption) }),
    raw: async () => {
      const { rows } = await d1Driver(db).query("SELECT (SELECT coalesce(group_concat(config, ' '), '') FROM taskwire_push_configs) || (SELECT coalesce(group_concat(letter, ' '), '') FROM taskwire_push_dead_letters) AS raw");
      return rows[0]!.raw as string;
    },
  };
});
