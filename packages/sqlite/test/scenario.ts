// One fixed run of every store call, recorded as a transcript: the same
// calls on any two stores that keep the TaskStore and PushConfigStore
// contracts give the same transcript. Run on the memory stores (the
// reference), on node:sqlite, under Bun on bun:sqlite and in workerd on D1.
// Imports only the main entries (no vitest, no node: modules).
import { replayEvents, type PushConfigStore, type StreamResponse, type Task, type TaskState, type TaskStore } from '@taskwire/core';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const status = (id: string, contextId: string, state: TaskState, n: number): StreamResponse => ({
  statusUpdate: { taskId: id, contextId, status: { state, timestamp: at(n) } },
});
const chunk = (id: string, contextId: string, i: number): StreamResponse => ({
  artifactUpdate: { taskId: id, contextId, artifact: { artifactId: 'out', parts: [{ text: `chunk ${i} ` }] }, append: i > 0, lastChunk: false },
});
const message = (id: string, contextId: string, text: string) => ({ messageId: `m-${id}-${text}`, contextId, taskId: id, role: 'ROLE_USER' as const, parts: [{ text }] });

/** What a call did: its value, or the name and message of what it threw. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    const value = await call();
    return value === undefined ? { undefined: true } : JSON.parse(JSON.stringify(value));
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/** Runs the scenario on `tasks` and `configs` (both empty); resolves the transcript. */
export async function storeScenario(tasks: TaskStore, configs: PushConfigStore): Promise<[string, unknown][]> {
  const log: [string, unknown][] = [];
  const record = async (label: string, call: () => Promise<unknown>) => void log.push([label, await outcome(call)]);
  const versions = new Map<string, number>();
  const stored = new Map<string, Task>();
  /** Commits `events` onto the task as the service would (appendOnly when no state changes), remembering the new version. */
  const commit = async (label: string, id: string, events: StreamResponse[], owner = 'alice') => {
    const before = stored.get(id)!;
    const task = replayEvents(before, events);
    const appendOnly = events.every((e) => 'artifactUpdate' in e || ('statusUpdate' in e && e.statusUpdate.status.state === before.status.state));
    await record(label, async () => {
      const result = await tasks.commit({ task, expectedVersion: versions.get(id)!, owner, events, appendOnly });
      versions.set(id, result.version);
      stored.set(id, task);
      return result;
    });
  };
  const create = async (id: string, contextId: string, n: number, owner = 'alice') => {
    const task: Task = { id, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: at(n) }, history: [message(id, contextId, 'hello')] };
    await record(`create ${id}`, async () => {
      const result = await tasks.commit({ task, expectedVersion: 0, owner, events: [{ task }], trace: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` });
      versions.set(id, result.version);
      stored.set(id, task);
      return result;
    });
  };

  await create('t1', 'ctx-a', 1);
  await create('t2', 'ctx-b', 2);
  await create('t3', 'ctx-a', 3);
  await create('t4', 'ctx-a', 4, 'bob');
  await record('create t1 again', () => tasks.commit({ task: stored.get('t1')!, expectedVersion: 0, owner: 'alice', events: [] }));
  await commit('t1 working', 't1', [status('t1', 'ctx-a', 'TASK_STATE_WORKING', 10)]);
  for (let i = 0; i < 5; i++) await commit(`t1 chunk ${i}`, 't1', [chunk('t1', 'ctx-a', i)]);
  await commit('t1 progress', 't1', [status('t1', 'ctx-a', 'TASK_STATE_WORKING', 11), chunk('t1', 'ctx-a', 5)]);
  await commit('t2 working', 't2', [status('t2', 'ctx-b', 'TASK_STATE_WORKING', 12)]);
  await record('stale t2', () => tasks.commit({ task: stored.get('t2')!, expectedVersion: 1, owner: 'alice', events: [] }));
  await record('t2 by bob', () => tasks.commit({ task: stored.get('t2')!, expectedVersion: versions.get('t2')!, owner: 'bob', events: [] }));
  await record('get t1', () => tasks.get('t1'));
  await record('events t1', () => tasks.readEvents('t1', 0));
  await record('events t1 after 3, 2 of them', () => tasks.readEvents('t1', 3, 2));
  await record('events of nothing', () => tasks.readEvents('nope', 0));
  await record('unsettled', async () => (await tasks.unsettled?.())?.sort());
  for (const pageSize of [1, 2, 50]) {
    await record(`list alice by ${pageSize}`, async () => {
      const pages = [];
      let pageToken: string | undefined;
      do {
        const page = await tasks.list({ owner: 'alice', pageSize, ...(pageToken && { pageToken }), includeArtifacts: true });
        pages.push({ ids: page.tasks.map((t) => t.id), totalSize: page.totalSize, more: page.nextPageToken !== '' });
        pageToken = page.nextPageToken || undefined;
      } while (pageToken);
      return pages;
    });
  }
  await record('list ctx-a', () => tasks.list({ owner: 'alice', contextId: 'ctx-a' }));
  await record('list working', () => tasks.list({ owner: 'alice', status: 'TASK_STATE_WORKING', historyLength: 0 }));
  await record('list after 11', () => tasks.list({ owner: 'alice', statusTimestampAfter: at(11) }));
  await record('list bob', () => tasks.list({ owner: 'bob' }));
  await record('list with a bad token', () => tasks.list({ owner: 'alice', pageToken: 'not-a-token' }));
  await commit('t1 completed', 't1', [status('t1', 'ctx-a', 'TASK_STATE_COMPLETED', 13)]);
  await record('get t1 completed', () => tasks.get('t1'));
  await record('delete t2', () => tasks.delete('t2'));
  await record('delete t2 again', () => tasks.delete('t2'));
  await record('get t2', () => tasks.get('t2'));
  await record('list after delete', () => tasks.list({ owner: 'alice' }));
  await create('t2', 'ctx-b', 14);
  await record('events of t2 created again', () => tasks.readEvents('t2', 0));

  const config = (taskId: string, id: string, delivered: number) => ({ owner: 'alice', delivered, config: { taskId, id, url: `https://hooks.example.com/${id}`, token: `tok-${id}` } });
  await record('put c2', () => configs.put(config('t1', 'c2', 0)));
  await record('put c1', () => configs.put(config('t1', 'c1', 4)));
  await record('put c1 behind', () => configs.put(config('t1', 'c1', 2)));
  await record('put t3 c1', () => configs.put(config('t3', 'c1', 0)));
  await record('advance c2', () => configs.advance('t1', 'c2', 3));
  await record('advance c2 back', () => configs.advance('t1', 'c2', 1));
  await record('list t1 configs', () => configs.list('t1'));
  /** `all` in a fixed order (the contract leaves its order to the store). */
  const all = async () => (await configs.all()).sort((a, b) => `${a.config.taskId}/${a.config.id}`.localeCompare(`${b.config.taskId}/${b.config.id}`));
  await record('all configs', all);
  await record('keys', async () => (await configs.keys?.())?.sort((a, b) => `${a.taskId}/${a.configId}`.localeCompare(`${b.taskId}/${b.configId}`)));
  const letter = (sequence: number, configId: string) => ({ taskId: 't1', configId, url: 'https://hooks.example.com/x', sequence, attempts: 3, error: 'the webhook answered HTTP 503', at: at(20 + sequence) });
  await record('dead letter 5', () => configs.deadLetter(letter(5, 'c2')));
  await record('dead letter 6', () => configs.deadLetter({ ...letter(6, 'c1'), throughSequence: 9 }));
  await record('get c1 after its letter', () => configs.get('t1', 'c1'));
  await record('letters', () => configs.listDeadLetters());
  await record('letters, 1', () => configs.listDeadLetters({ limit: 1 }));
  await record('remove letters before 26', () => configs.removeDeadLetters({ before: at(26) }));
  await record('letters left', () => configs.listDeadLetters({ taskId: 't1' }));
  await record('delete c1', () => configs.delete('t1', 'c1'));
  await record('delete task t1 configs', () => configs.deleteTask('t1'));
  await record('all configs at the end', all);
  return log;
}
