import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const children: ChildProcess[] = [];

/** Starts `src/main.ts` as `pnpm start` does and resolves with its printed URLs once it is ready. */
function start(args: string[]): Promise<{ child: ChildProcess; output: string; jsonRpc: string; card: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/main.ts', ...args], { cwd: root });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready:\n${output}`)));
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Press Ctrl+C to stop.')) {
        const url = (name: string) => new RegExp(`${name}\\s+(\\S+)`).exec(output)![1]!;
        resolve({ child, output, jsonRpc: url('JSON-RPC'), card: url('card') });
      }
    });
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/** Runs `src/main.ts` with `args` until it exits; resolves with its exit code and what it wrote on stderr. */
async function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@taskwire/source', 'src/main.ts', ...args], { cwd: root });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  return { code: await exited(child), stderr };
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('pnpm start (src/main.ts)', () => {
  it('serves every transport with a file store, answers echo, and stops cleanly on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'taskwire-main-'));
    try {
      const agent = await start(['--port', '0', '--grpc-port', '0', '--store', `file:${dir}`]);
      for (const label of ['JSON-RPC', 'HTTP+JSON', 'WebSocket', 'gRPC', 'card', 'web page', 'curl']) expect(agent.output).toContain(label);
      const card = await (await fetch(agent.card)).json();
      expect(card.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual([
        'JSONRPC',
        'HTTP+JSON',
        'GRPC',
        'https://taskwire.dev/bindings/trpc-ws/v1',
      ]);
      // The reference agent turns on the v0.3 discovery fields: v0.3 clients find its JSON-RPC endpoint.
      expect([card.url, card.preferredTransport]).toEqual([agent.jsonRpc, 'JSONRPC']);
      const reply = await fetch(agent.jsonRpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'echo hi' }] } } }),
      });
      const body = await reply.json();
      expect(body.result.task.status.message.parts).toEqual([{ text: 'hi' }]);
      expect(await readdir(dir)).toContain('tasks.log');
      const exit = exited(agent.child);
      agent.child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with --api-key, refuses calls without the key', async () => {
    const agent = await start(['--port', '0', '--grpc-port', '0', '--store', 'memory', '--api-key', 'sekret']);
    const call = (headers: Record<string, string>) =>
      fetch(agent.jsonRpc, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
      });
    expect((await call({})).status).toBe(401);
    expect((await call({ 'x-api-key': 'sekret' })).status).toBe(200);
  });

  it('rejects a bad option with the usage text and exit code 2', async () => {
    const { code, stderr } = await run(['--store', 'nowhere']);
    expect(code).toBe(2);
    expect(stderr).toContain('--store must be');
    expect(stderr).toContain('Usage:');
  });

  it('an unreachable database at start: says so in start-up terms and exits 1', async () => {
    const { code, stderr } = await run(['--store', 'postgres://nobody:pw@127.0.0.1:1/none', '--migrate', '--port', '0', '--grpc-port', '0']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Could not start the reference agent: the database at postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none is unreachable \(.*ECONNREFUSED.*\)\. Check that PostgreSQL is running there/m);
    expect(stderr).not.toContain('Retry the request');
  });

  it('names a port that is taken and the option that changes it (HTTP and gRPC)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as AddressInfo).port);
    try {
      for (const [args, option] of [
        [['--port', port, '--grpc-port', '0'], '--port'],
        [['--port', '0', '--grpc-port', port], '--grpc-port'],
      ] as const) {
        const { code, stderr } = await run([...args, '--store', 'memory']);
        expect(code).toBe(1);
        expect(stderr).toContain(`Could not start the reference agent: port ${port} on 127.0.0.1 is already in use`);
        expect(stderr).toContain(`pick another port with ${option} <n>`);
        expect(stderr).not.toContain('No address added');
      }
    } finally {
      taken.close();
    }
  });
});
