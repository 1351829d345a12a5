// Fresh PostgreSQL databases on the test server for the docs' commands,
// each dropped at the end.
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Makes databases on the server at `url` (a superuser's URL) and drops them on `close()`. */
export interface Databases {
  /** A new, empty database named `<prefix>_<n>_<pid>`; resolves with its URL. */
  create(prefix: string): Promise<string>;
  close(): Promise<void>;
}

/** What this file uses of `pg` (the repository's root does not depend on it, so its types are not in reach here). */
interface PgModule {
  Pool: new (config: { connectionString: string; max: number }) => { query(sql: string): Promise<unknown>; end(): Promise<void> };
}

/** {@link Databases} on the server at `url`, through `pg` as the repository at `root` installs it. */
export function freshDatabases(root: string, url: string): Databases {
  const { Pool } = createRequire(join(root, 'packages/postgres/package.json'))('pg') as PgModule;
  const pool = new Pool({ connectionString: url, max: 1 });
  const made: string[] = [];
  return {
    async create(prefix) {
      const name = `${prefix}_${made.length}_${process.pid}`;
      await pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await pool.query(`CREATE DATABASE ${name}`);
      made.push(name);
      const at = new URL(url);
      at.pathname = `/${name}`;
      return at.toString();
    },
    async close() {
      for (const name of made) await pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await pool.end();
    },
  };
}
