import { A2AError } from '@taskwire/core';
import { commitOf, testEvent, testTask } from '@taskwire/core/testing';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { expect, it } from 'vitest';
import { replicatedPair } from './support/replicated-postgres.js';

/** Which server a query ran on (its port). */
const PORT = 'SELECT inet_server_port() AS port';

describePostgres('PostgreSQL failover: a store on a multi-host connection string', () => {
  it('connects to the writable host only, refuses a standby as a retryable error, and follows a promotion with nothing committed lost', async () => {
    const pair = await replicatedPair({ synchronous: true });
    const closing: (() => Promise<unknown>)[] = [];
    try {
      // The standby first: a connection must pass it by.
      const url = `postgres://postgres@127.0.0.1:${pair.standbyPort},127.0.0.1:${pair.primaryPort}/postgres?target_session_attrs=read-write`;
      await migrate({ connectionString: url });
      const store = await createPostgresTaskStore({ connectionString: url, connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 });
      closing.push(() => store.close());
      const task = testTask('failover-1');
      let version = (await store.commit(commitOf(task, 0, [testEvent(task, 1)]))).version;
      const portOf = async (query: (text: string) => Promise<{ rows: { port: number }[] }>) => (await query(PORT)).rows[0]!.port;
      expect(await portOf((text) => store.pool.query(text))).toBe(pair.primaryPort);

      // One host, the standby (an address not switched yet): its first write is a retryable "unreachable" (SQLSTATE 25006), never a failure of its own.
      const refused = await createPostgresTaskStore({ connectionString: pair.standbyUrl, connectTimeoutMs: 2_000 }).catch((error: unknown) => error);
      expect(A2AError.is(refused)).toBe(true);
      expect(refused).toMatchObject({ message: expect.stringMatching(/The task database is unreachable \(cannot execute .* in a read-only transaction\).*Retry the request shortly/) });

      for (let n = 2; n <= 5; n++) version = (await store.commit(commitOf(task, version, [testEvent(task, n)]))).version;
      const killed = Date.now();
      await pair.killPrimary();
      const promoted = pair.promote();
      // Until the standby takes writes, commits fail as retryable; then the same store commits on it.
      let failures = 0;
      for (;;) {
        const result = await store.commit(commitOf(task, version, [testEvent(task, 6)])).catch((error: unknown) => error);
        if (!(result instanceof Error)) {
          version = (result as { version: number }).version;
          break;
        }
        expect(A2AError.is(result), String(result)).toBe(true);
        expect((result as Error).message).toMatch(/unreachable|No host of the connection string reached a writable/);
        failures++;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await promoted;
      process.stdout.write(`multi-host failover: first commit on the promoted standby ${Date.now() - killed} ms after the kill (${failures} retryable failures)\n`);
      expect(await portOf((text) => store.pool.query(text))).toBe(pair.standbyPort);
      // Synchronous replication: every acknowledged event is on the new primary, in order.
      const events = await store.readEvents(task.id, 0, 100);
      expect(events.map((event) => (event.event as unknown as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await store.get(task.id))!.version).toBe(version);
    } finally {
      for (const close of closing.reverse()) await close().catch(() => undefined);
      await pair.destroy();
    }
  }, 120_000);
});
