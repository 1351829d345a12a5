import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Task, TaskStore, Transport } from '@taskwire/core';
import { A2AError, createMemoryTaskStore, inMemoryTransport, TaskService, timestampSortKey } from '@taskwire/core';
import { FileTaskStore } from '@taskwire/core/file';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, describe, expect, it } from 'vitest';
import { logProblems, numbered, occurrences } from './support/lifecycle-check.js';

const CONTINUATIONS = 200;
const TURNS = 5;
const NEW_TASKS = 1_000;
const INSERTS_WHILE_PAGING = 500;

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const STORES: ReadonlyArray<[string, () => Promise<TaskStore>]> = [
  ['memory', async () => createMemoryTaskStore({ maxTasks: 100_000 })],
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'taskwire-concurrency-'));
      dirs.push(dir);
      return FileTaskStore.open(dir);
    },
  ],
];

const user = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

async function send(client: Transport, message: Message): Promise<Task> {
  const result = await client.unary('SendMessage', { message });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

/** Every event the store logged for `task` follows the lifecycle and ends in the task's state. */
async function expectSoundLog(store: TaskStore, task: Task): Promise<void> {
  const events = (await store.readEvents(task.id, 0)).map(numbered);
  expect(logProblems(events, { finalState: task.status.state }), `event log of task ${task.id}`).toEqual([]);
}

describe.each(STORES)('concurrency on the %s store (reference agent, in-process service)', (storeName, openStore) => {
  const setup = async () => {
    const store = await openStore();
    const service = new TaskService({ store, agent: referenceAgent, card: referenceAgentCard([]) });
    return { store, service, client: inMemoryTransport(service) };
  };

  it(`${CONTINUATIONS} concurrent continuations of one input-required task, ${TURNS} turns: accepted ones are in history once, the rest get a clear error`, async () => {
    const { store, service, client } = await setup();
    try {
      const task = await send(client, user('write me a sunset quote'));
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const accepted = new Set<string>();
      let rejected = 0;
      for (let turn = 1; turn <= TURNS; turn++) {
        // The last turn names a platform (the quote completes); the others do not (the agent asks again).
        const answer = (i: number) => (turn === TURNS ? `insta ${i}` : `hmm ${turn}.${i}`);
        const distinct = Array.from({ length: CONTINUATIONS * 0.8 }, (_, i) => user(answer(i), { taskId: task.id }));
        // A fifth of them are sent twice (a client retrying): a message is never applied twice.
        const calls = [...distinct, ...distinct.slice(0, CONTINUATIONS * 0.2)].map((message) => ({ message, outcome: send(client, message) }));
        const settled = await Promise.allSettled(calls.map((c) => c.outcome));
        const fulfilled = new Set<string>();
        settled.forEach((outcome, i) => {
          const { messageId } = calls[i]!.message;
          if (outcome.status === 'fulfilled') return void fulfilled.add(messageId);
          rejected++;
          const error = outcome.reason as A2AError;
          expect(A2AError.is(error), String(error)).toBe(true);
          expect(error.kind).toBe('UnsupportedOperation');
          expect(error.message).toMatch(/takes a new message only when it is input-required|cannot change/);
          expect(error.metadata.taskId).toBe(task.id);
        });
        expect(fulfilled.size, `turn ${turn}: at least one continuation is accepted`).toBeGreaterThan(0);
        const now = await client.unary('GetTask', { id: task.id });
        for (const message of distinct) {
          expect(occurrences(now, message.messageId), `turn ${turn}, message ${message.messageId}`).toBe(fulfilled.has(message.messageId) ? 1 : 0);
        }
        for (const id of fulfilled) accepted.add(id);
      }
      const final = await client.unary('GetTask', { id: task.id });
      expect(final.status.state).toBe('TASK_STATE_COMPLETED');
      // Strict turns: the agent answered every accepted message before the next one was taken.
      const roles = (final.history ?? []).map((m) => m.role);
      expect(roles).toEqual(roles.map((_, i) => (i % 2 === 0 ? 'ROLE_USER' : 'ROLE_AGENT')));
      expect(roles.filter((r) => r === 'ROLE_USER')).toHaveLength(1 + accepted.size);
      await expectSoundLog(store, final);
      console.log(
        `concurrency (${storeName} store): ${TURNS} turns of ${CONTINUATIONS} concurrent continuations: ${accepted.size} accepted (each in history once), ` +
          `${rejected} rejected with UnsupportedOperation, state machine and event log sound`,
      );
    } finally {
      await service.close();
      await store.close();
    }
  }, 60_000);

  it(`${NEW_TASKS} concurrent new tasks in one context, then ListTasks paged while ${INSERTS_WHILE_PAGING} more are inserted: no task skipped or repeated`, async () => {
    const { store, service, client } = await setup();
    try {
      const contextId = crypto.randomUUID();
      const sent = Array.from({ length: NEW_TASKS }, (_, i) => user(`echo ${i}`, { contextId }));
      const tasks = await Promise.all(sent.map((message) => send(client, message)));
      expect(new Set(tasks.map((t) => t.id)).size).toBe(NEW_TASKS);
      tasks.forEach((task, i) => {
        expect(task.contextId).toBe(contextId);
        expect(task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(occurrences(task, sent[i]!.messageId)).toBe(1);
      });
      expect((await client.unary('ListTasks', { contextId, pageSize: 1 })).totalSize).toBe(NEW_TASKS);

      const inserting = Promise.all(Array.from({ length: INSERTS_WHILE_PAGING }, (_, i) => send(client, user(`echo late ${i}`, { contextId }))));
      const seen: Task[] = [];
      let pages = 0;
      for (let pageToken = ''; ; pages++) {
        const page = await client.unary('ListTasks', { contextId, pageSize: 7, historyLength: 0, ...(pageToken && { pageToken }) });
        seen.push(...page.tasks);
        if (!(pageToken = page.nextPageToken)) break;
      }
      const late = await inserting;
      const ids = seen.map((t) => t.id);
      expect(new Set(ids).size, 'no task is listed twice').toBe(ids.length);
      const listed = new Set(ids);
      expect(tasks.filter((t) => !listed.has(t.id)).map((t) => t.id), 'every task that existed before paging started is listed').toEqual([]);
      const keys = seen.map((t) => `${timestampSortKey(t.status.timestamp)} ${t.id}`);
      expect(keys, 'pages follow the status timestamp, newest first').toEqual([...keys].sort().reverse());
      expect((await client.unary('ListTasks', { contextId, pageSize: 1 })).totalSize).toBe(NEW_TASKS + INSERTS_WHILE_PAGING);
      for (const task of [...tasks, ...late]) await expectSoundLog(store, await client.unary('GetTask', { id: task.id }));
      const lateListed = late.filter((t) => listed.has(t.id)).length;
      console.log(
        `concurrency (${storeName} store): ${NEW_TASKS} concurrent new tasks in one context all completed; ${pages} pages listed while ` +
          `${INSERTS_WHILE_PAGING} tasks were inserted (${lateListed} of them listed): 0 skipped, 0 repeated`,
      );
    } finally {
      await service.close();
      await store.close();
    }
  }, 60_000);
});
