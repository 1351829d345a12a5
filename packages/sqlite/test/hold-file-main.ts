// A process that opens a SQLite task store on the file it is given (argv[2]),
// (task ids from argv[3] on),
// says "ready" once it holds it, then creates one task after another with
// a few events each, printing "acked <id>" when each commit resolved, until
// it is killed.
import { createSqliteTaskStore } from '../src/index.js';
import { nodeSqlite } from '../src/node.js';

const store = await createSqliteTaskStore({ driver: nodeSqlite(process.argv[2]!) });
process.stdout.write('ready\n');
for (let i = Number(process.argv[3] ?? 0); ; i++) {
  const id = `task-${i}`;
  const task = { id, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' as const, timestamp: new Date().toISOString() } };
  const events = [0, 1, 2].map((n) => ({ statusUpdate: { taskId: id, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' as const }, metadata: { n } } }));
  await store.commit({ task, expectedVersion: 0, owner: 'alice', events });
  process.stdout.write(`acked ${id}\n`);
}
