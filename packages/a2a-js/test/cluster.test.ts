import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { A2AClient } from '@taskwire/client';
import type { StreamEvent, Task } from '@taskwire/core';
import { createClient } from '@taskwire/client';
import { migrate } from '@taskwire/postgres';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ReplicaReport } from './fixtures/replica.js';

const REPLICA = fileURLToPath(new URL('./fixtures/replica.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(fileURLToPath(new URL('../../../package.json', import.meta.url))).resolve('tsx')).href;
const user = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], ...extra } });

/** A replica process and what its executor reported. */
interface Replica {
  readonly name: string;
  readonly child: ChildProcess;
  readonly reports: ReplicaReport[];
  readonly client: A2AClient;
}

async function startReplica(databaseUrl: string, schema: string, name: string): Promise<Replica> {
  const child = fork(REPLICA, [databaseUrl, schema, name], { execArgv: ['--import', TSX, '--conditions=@taskwire/source'], stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const reports: ReplicaReport[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (report: ReplicaReport) => {
      reports.push(report);
      if (report.kind === 'ready') resolve(report.url);
    });
    child.once('exit', (code) => reject(new Error(`replica ${name} exited (${code}) before it was ready:\n${stderr}`)));
  });
  return { name, child, reports, client: await createClient(url, { preferred: ['JSONRPC'] }) };
}

const executed = (replica: Replica) => replica.reports.filter((r) => r.kind === 'execute');
const canceled = (replica: Replica) => replica.reports.filter((r) => r.kind === 'cancel');

describePostgres('an a2a-js executor on a PostgreSQL cluster: 2 replica processes', (db) => {
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    const schema = await db.schema('tw_a2a_js_cluster');
    await migrate({ connectionString: db.url, schema });
    [a, b] = await Promise.all([startReplica(db.url, schema, 'replica-a'), startReplica(db.url, schema, 'replica-b')]);
  }, 120_000);
  afterAll(async () => {
    for (const replica of [a, b]) {
      if (!replica) continue;
      await replica.client.close();
      const exited = new Promise((resolve) => replica.child.once('exit', resolve));
      replica.child.disconnect();
      await exited;
    }
  });

  it("runs a follow-up turn sent to the other replica there, with the task as the first replica's turn left it", async () => {
    const first = await a.client.sendMessage(user('book'));
    if (!('task' in first)) throw new Error('expected a task');
    const task = first.task;
    expect(task.status).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which day?' }] } });
    const second = await b.client.sendMessage(user('Friday', { taskId: task.id }));
    expect('task' in second && second.task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Booked for Friday on replica-b' }] } });
    expect(executed(a).filter((r) => r.taskId === task.id)).toEqual([{ kind: 'execute', replica: 'replica-a', taskId: task.id, text: 'book', task: undefined }]);
    // The executor on B is handed the task as a2a-js hands a follow-up: still input-required (6), the answer last.
    expect(executed(b).filter((r) => r.taskId === task.id)).toEqual([{ kind: 'execute', replica: 'replica-b', taskId: task.id, text: 'Friday', task: { state: 6, history: ['book', 'Which day?', 'Friday'] } }]);
  }, 60_000);

  it("a cancel sent to the other replica reaches cancelTask on the replica running the executor, and the executor's own canceled message is the answer", async () => {
    const events: StreamEvent[] = [];
    let answer: Promise<Task> | undefined;
    // Streamed at A, which runs the executor; canceled at B once it works.
    for await (const event of a.client.sendStreamingMessage(user('wait'))) {
      events.push(event);
      const response = event.response;
      if (!answer && 'statusUpdate' in response && response.statusUpdate.status.state === 'TASK_STATE_WORKING') answer = b.client.cancelTask({ id: response.statusUpdate.taskId });
    }
    const id = (events[0]!.response as { task: Task }).task.id;
    const saidByExecutor = { state: 'TASK_STATE_CANCELED', message: { role: 'ROLE_AGENT', parts: [{ text: 'Task cancelled by user on replica-a.' }] } };
    expect((await answer)!.status).toMatchObject(saidByExecutor);
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { taskId: id, status: saidByExecutor } });
    await vi.waitFor(() => expect(canceled(a).map((r) => r.taskId)).toContain(id), { timeout: 20_000, interval: 50 });
    expect(canceled(b).map((r) => r.taskId)).not.toContain(id);
    expect((await a.client.getTask({ id })).status).toMatchObject(saidByExecutor);
    expect((await b.client.getTask({ id })).status).toMatchObject(saidByExecutor);
  }, 60_000);
});
