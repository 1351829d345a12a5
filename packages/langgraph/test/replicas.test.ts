import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { createClient } from '@taskwire/client';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';
import { lastStatus, streamed, userMessage } from '../src/test-kit.js';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const REPLICA = new URL('./replica.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts a replica process on `schema`; resolves with its URL once it serves. */
function replica(url: string, schema: string): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--import', TSX, '--conditions=@taskwire/source', REPLICA, url, schema], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /ready (\S+)/.exec(out);
      if (ready) resolve({ child, url: ready[1]!, exited });
    });
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}) before serving:\n${out}`)));
  });
}

describePostgres('langGraphAgent on a PostgreSQL cluster', (db) => {
  it('answers the pause at another replica after the first one was stopped (the task store and the checkpoints in the database)', async () => {
    const schema = await db.schema('tw_langgraph');
    const first = await replica(db.url, schema);
    const one = await createClient(first.url);
    const paused = await streamed(one, userMessage('Book me a flight'));
    expect(lastStatus(paused)).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which city?' }] } });
    const taskId = (await one.listTasks({})).tasks[0]!.id;
    await one.close();
    first.child.kill('SIGKILL');
    await first.exited;

    const second = await replica(db.url, schema);
    const two = await createClient(second.url);
    const answered = await streamed(two, userMessage('Oslo', { taskId }));
    expect(lastStatus(answered)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: `Booked Oslo (replica ${second.child.pid}).` }] } });
    await two.close();
    await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}_graph" CASCADE`);
  }, 180_000);
});
