import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describePostgres } from '@taskwire/postgres/testing';
import { afterEach, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const children: ChildProcess[] = [];

interface Run {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output(): string;
}

/** Runs `src/main.ts` as `npm start` does, with `env` on top of a bare environment. */
function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/main.ts', '--port', '0', '--grpc-port', '0', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Resolves the JSON-RPC URL once the agent printed it. */
function ready(agent: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /JSON-RPC\s+(\S+)/.exec(agent.output())?.[1];
      if (url && agent.output().includes('Press Ctrl+C to stop.')) resolve(url);
    };
    agent.child.stdout!.on('data', check);
    void agent.exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${agent.output()}`)));
  });
}

async function rpc(url: string, method: string, params: unknown): Promise<{ result?: { task?: { id: string; status: { state: string; message?: unknown } }; id?: string; status?: { state: string } } }> {
  const reply = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return reply.json() as never;
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describePostgres('npm start -- --store postgres://...', (db) => {
  it('says what to run on a schema that is not migrated, migrates with --migrate, and keeps tasks across restarts', async () => {
    const schema = `tw_agent_${randomBytes(5).toString('hex')}`;
    try {
      const unmigrated = run(['--store', db.url, '--schema', schema]);
      expect(await unmigrated.exited).toBe(1);
      // Started from the clone: the command that works here is the root script.
      expect(unmigrated.output()).toMatch(/Could not start the reference agent: The PostgreSQL schema ".*" has no Taskwire tables yet.*Apply the migrations first: npm run taskwire-postgres -- migrate --url /);

      const first = run(['--store', db.url, '--schema', schema, '--migrate']);
      const url = await ready(first);
      expect(first.output()).toMatch(new RegExp(`postgres store at postgres://.*, schema "${schema}"`));
      expect(first.output()).toMatch(new RegExp(`schema "${schema}" migrated from version 0 to \\d+: applied 1 \\(tasks and their event logs\\), 2 \\(`));
      const sent = await rpc(url, 'SendMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo from postgres' }] } });
      expect(sent.result?.task?.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'from postgres' }] } });
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      // DATABASE_URL names the store when --store is not given.
      const second = run(['--schema', schema], { DATABASE_URL: db.url });
      const again = await ready(second);
      expect((await rpc(again, 'GetTask', { id: sent.result!.task!.id })).result).toMatchObject({ id: sent.result!.task!.id, status: { state: 'TASK_STATE_COMPLETED' } });
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      await db.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
