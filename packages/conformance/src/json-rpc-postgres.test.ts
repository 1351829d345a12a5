import { createPostgresPushConfigStore, createPostgresTaskStore } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import type { SuiteStorage } from './harness.js';
import { jsonRpcFixture } from './json-rpc-fixture.js';
import { runConformance } from './suite.js';

describePostgres('the A2A requirement suite on PostgreSQL', (db) => {
  /** Each service gets a fresh schema (tests run in parallel on one server), dropped when it closes. */
  const storage: SuiteStorage = {
    name: 'PostgreSQL',
    async open() {
      const schema = await db.schema('tw_suite');
      const tasks = await createPostgresTaskStore({ pool: db.pool, schema });
      const push = await createPostgresPushConfigStore({ pool: db.pool, schema });
      return {
        tasks,
        push,
        async close() {
          await push.close();
          await tasks.close();
          await db.drop(schema);
        },
      };
    },
  };
  runConformance(jsonRpcFixture, { storage });
  runConformance(jsonRpcFixture, { storage, caller: { principalId: 'alice' } });
});
