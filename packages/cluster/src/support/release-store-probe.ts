/**
 * A store operation run with one release's `@taskwire/postgres` and core
 * (see previous-release.ts, which copies this file into an earlier
 * release's tree and runs it there with that release's tsx): what a
 * replica of that release does to a task, alone in a process.
 *
 *   node release-store-probe.ts <url> <schema> migrate                 migrates the schema to that release's version
 *   node release-store-probe.ts <url> <schema> stream <taskId> <n>      a working task (owner alice) and n artifact chunks,
 *                                                                       each its own commit marked append-only; prints the task
 *   node release-store-probe.ts <url> <schema> sweep <maxEventAgeMs>   the age sweep; prints how many events went
 *   node release-store-probe.ts <url> <schema> get <taskId>            prints the task (null when missing)
 *   node release-store-probe.ts <url> <schema> list <owner>            prints ListTasks' first page (100)
 *   node release-store-probe.ts <url> <schema> fail <taskId>           settles the task FAILED, as a replica taking
 *                                                                       over a dead one's task does; prints the task
 *   node release-store-probe.ts <url> <schema> delete <taskId>         deletes the task; prints whether it was there
 *
 * and with that release's file push store (`@taskwire/core/push`) on a
 * directory, without PostgreSQL (pass `-` as url and schema); `<key>` is a
 * base64 key opened as encryption key `k`, or `-` for none:
 *
 *   node release-store-probe.ts - - push-put <dir> <key> <taskId> <configId> <url> <token>
 *                                                                       sets the config (owner alice); prints it as read back
 *   node release-store-probe.ts - - push-all <dir> <key>               prints every config, secrets opened
 *
 * It imports only what every release since the first has, by package name
 * (the push store only when a push op asks for it).
 */
import { reduce, type StreamResponse, type Task } from '@taskwire/core';
import { createPostgresTaskStore, migrate } from '@taskwire/postgres';

const [url, schema, op, arg, count] = process.argv.slice(2) as [string, string, string, string, string];

/** What a replica of the release does for `op`, on `store`. */
async function operate(store: Awaited<ReturnType<typeof createPostgresTaskStore>>): Promise<unknown> {
  if (op === 'sweep') return store.pruneEvents();
  if (op === 'get') return (await store.get(arg))?.task ?? null;
  if (op === 'list') return store.list({ owner: arg, pageSize: 100, includeArtifacts: true });
  if (op === 'delete') return store.delete(arg);
  if (op === 'stream') {
    let task: Task = { id: arg, contextId: `ctx-${arg}`, status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() } };
    let { version } = await store.commit({ task, expectedVersion: 0, owner: 'alice', events: [{ task }] });
    for (let n = 1; n <= Number(count); n++) {
      const event = { artifactUpdate: { taskId: task.id, contextId: task.contextId, artifact: { artifactId: 'out', parts: [{ text: `chunk ${n} ` }] }, append: n > 1 } };
      const next = reduce(task, event);
      if (!next.ok) throw new Error(next.error.message);
      task = next.task;
      ({ version } = await store.commit({ task, expectedVersion: version, owner: 'alice', events: [event], appendOnly: true }));
    }
    return task;
  }
  if (op === 'fail') {
    const record = await store.get(arg);
    if (record === undefined) throw new Error(`no task ${arg}`);
    const { task } = record;
    const event = { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_FAILED' as const, timestamp: new Date().toISOString() } } };
    const next = reduce(task, event);
    if (!next.ok) throw new Error(next.error.message);
    await store.commit({ task: next.task, expectedVersion: record.version, owner: record.owner, events: [event satisfies StreamResponse] });
    return next.task;
  }
  throw new Error(`unknown op ${op}`);
}

/** What a process of the release does for the push op `op` on the directory `arg`, with its file push store. */
async function operatePush(): Promise<unknown> {
  const [directory, key, taskId, id, hookUrl, token] = process.argv.slice(5) as [string, string, string, string, string, string];
  const { FilePushConfigStore } = await import('@taskwire/core/push');
  const store = await FilePushConfigStore.open({ directory }, key === '-' ? {} : { encryption: { current: 'k', keys: { k: key } } });
  try {
    if (op === 'push-all') return await store.all();
    if (op === 'push-put') return await store.put({ owner: 'alice', delivered: 0, config: { taskId, id, url: hookUrl, token } });
    throw new Error(`unknown op ${op}`);
  } finally {
    await store.close();
  }
}

let result: unknown;
if (op.startsWith('push-')) result = await operatePush();
else if (op === 'migrate') result = (await migrate({ connectionString: url, schema })).version;
else {
  const store = await createPostgresTaskStore({ connectionString: url, schema, ...(op === 'sweep' && { retention: { maxEventAgeMs: Number(arg) } }) });
  try {
    result = await operate(store);
  } finally {
    await store.close();
  }
}
process.stdout.write(JSON.stringify(result));
