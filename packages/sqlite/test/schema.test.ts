import { describe, expect, it } from 'vitest';
import { createSqliteTaskStore, migrateSqlite, schemaVersion, SQLITE_SCHEMA_VERSION, SqliteSchemaTooNewError } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';

describe('SQLite schema versions', () => {
  it('migrates an empty database to this release, once; a second migration finds nothing to do', async () => {
    const driver = nodeSqlite(':memory:');
    expect(await migrateSqlite(driver)).toBe(0);
    expect(await schemaVersion(driver)).toBe(SQLITE_SCHEMA_VERSION);
    expect(await migrateSqlite(driver)).toBe(SQLITE_SCHEMA_VERSION);
    await driver.close();
  });

  it('refuses a database a newer release migrated, saying to upgrade, and writes nothing to it', async () => {
    const driver = nodeSqlite(':memory:');
    await migrateSqlite(driver);
    await driver.query("UPDATE taskwire_meta SET value = ?1 WHERE key = 'schema_version'", [String(SQLITE_SCHEMA_VERSION + 1)]);
    const error = await createSqliteTaskStore({ driver, closeDriver: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqliteSchemaTooNewError);
    expect((error as Error).message).toMatch(/newer than this release's .*upgrade @taskwire\/sqlite/);
    expect(await schemaVersion(driver)).toBe(SQLITE_SCHEMA_VERSION + 1);
    await driver.close();
  });

  it('leaves the schema alone with migrate: false, and the store then fails on its first call, not silently', async () => {
    const driver = nodeSqlite(':memory:');
    const store = await createSqliteTaskStore({ driver, migrate: false });
    await expect(store.get('t1')).rejects.toThrow(/no such table/);
    await store.close();
  });
});
