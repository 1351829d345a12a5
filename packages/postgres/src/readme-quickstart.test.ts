import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describePostgres } from './database-test-kit.js';
import { spawnSource } from './source-process-test-kit.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
/** Inside the package (so its imports resolve as a user's would), in a directory git ignores. */
const DIR = fileURLToPath(new URL('./.readme-examples/', import.meta.url));

describePostgres('the README quickstart', (db) => {
  it('runs as written: migrates a new database, serves the echo agent and answers over JSON-RPC', async () => {
    const quickstart = /## Quickstart\n\n(?:<!--[^>]*-->\n)?```ts\n([\s\S]*?)```/.exec(await readFile(README, 'utf8'))![1]!;
    const database = `tw_readme_${randomBytes(5).toString('hex')}`;
    await db.pool.query(`CREATE DATABASE ${database}`);
    const url = new URL(db.url);
    url.pathname = `/${database}`;
    const file = `${DIR}quickstart-${database}.ts`;
    await mkdir(DIR, { recursive: true });
    await writeFile(file, quickstart);
    const child = spawnSource(file, [], { PATH: process.env.PATH ?? '', DATABASE_URL: url.toString(), PORT: '0' });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let output = '';
      const endpoint = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          output += chunk;
          const found = /A2A over JSON-RPC at (\S+)/.exec(output)?.[1];
          if (found) resolve(found);
        });
        child.stderr.on('data', (chunk) => (output += chunk));
        void exited.then((code) => reject(new Error(`the quickstart exited (${code}):\n${output}`)));
      });
      const reply = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello from the README' }] } } }),
      });
      const body = (await reply.json()) as { result: { task: { status: { state: string; message: { parts: unknown[] } } } } };
      expect(body.result.task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'hello from the README' }] } });
    } finally {
      child.kill('SIGKILL');
      await exited;
      await rm(file, { force: true });
      await db.pool.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    }
  });
});
