/**
 * A replica process for tests, started by `startCrashableReplica`
 * (crashable-replica-test-kit.ts): on the schema given as JSON in its first
 * argument, it opens a store (reading the contract steps again every
 * `contractRefreshMs`, when given) and a coordinator, claims the given tasks as a
 * run does (rows held by its process id, their row lease set), holds their
 * leases, says `holding <process id>` on stdout (and `lost <task id>` for a
 * lease it loses), and runs until it is killed.
 */
import { quoteSchema } from '../schema-name.js';
import { createPostgresTaskStore } from '../task-store.js';
import { insertTask } from './coordinator-test-kit.js';
import { createPostgresCoordinator } from './coordinator.js';

const { url, schema, leaseTtlMs, taskIds, contractRefreshMs } = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  schema: string;
  leaseTtlMs: number;
  taskIds: string[];
  contractRefreshMs?: number;
};
const store = await createPostgresTaskStore({ connectionString: url, schema, poolSize: 2, contractRefreshMs });
const coordinator = await createPostgresCoordinator({ store, leaseTtlMs });
for (const id of taskIds) {
  await insertTask(store.pool, quoteSchema(schema), id, 'TASK_STATE_WORKING', { holder: coordinator.processId, expiresInMs: leaseTtlMs, epoch: 2 });
  coordinator.hold(id, 2, () => process.stdout.write(`lost ${id}\n`));
}
process.stdout.write(`holding ${coordinator.processId}\n`);
// The coordinator's timers let a process end; its runs would keep it alive, and so does this.
setInterval(() => undefined, 60_000);
