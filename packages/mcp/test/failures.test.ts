// What goes wrong gives readable isError results, never a crash or a hang:
// an unreachable agent, a timeout, missing credentials. Real bridge processes.
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, overStdio, startAgent, textOf } from './kit.js';

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let agent: RunningAgent;
let keyed: RunningAgent;
beforeAll(async () => {
  [agent, keyed] = await Promise.all([startAgent(), startAgent('sekret')]);
});
afterAll(async () => {
  await Promise.all([agent?.close(), keyed?.close()]);
});

describe('taskwire-mcp on stdio', { timeout: 60_000 }, () => {
  it('starts without a reachable agent: send_message says why, and the server keeps answering', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const mcp = await overStdio([url]);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'get_task', 'list_tasks', 'send_message']);
      const result = await call(mcp.client, 'send_message', { message: 'echo hi' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`The agent at ${url} could not be reached`);
      const again = await call(mcp.client, 'get_task', { taskId: 'nope' });
      expect(again.isError).toBe(true);
      expect(mcp.stderr()).toContain('could not be reached');
    } finally {
      await mcp.close();
    }
  });

  it('--timeout: a task that does not finish in time is an isError result naming the task, which goes on', async () => {
    const mcp = await overStdio([agent.baseUrl, '--timeout', '300']);
    try {
      const result = await call(mcp.client, 'slow', { message: 'slow 100 1000' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^The agent did not finish within 300 ms\. Task \S+ goes on; check on it with get_task\.$/);
      const taskId = result._meta!.taskId as string;
      const canceled = await call(mcp.client, 'cancel_task', { taskId });
      expect(canceled._meta).toMatchObject({ state: 'canceled' });
    } finally {
      await mcp.close();
    }
  });

  it('sends the API key from TASKWIRE_API_KEY; without it the call is an isError asking for credentials', async () => {
    const withKey = await overStdio([keyed.baseUrl], { TASKWIRE_API_KEY: 'sekret' });
    const without = await overStdio([keyed.baseUrl]);
    try {
      const ok = await call(withKey.client, 'echo', { message: 'echo keyed' });
      expect(ok.content[0]).toEqual({ type: 'text', text: 'keyed' });
      const refused = await call(without.client, 'echo', { message: 'echo keyed' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('Give the bridge credentials');
    } finally {
      await Promise.all([withKey.close(), without.close()]);
    }
  });

  it('--token sends a bearer token (accepted by an agent that takes its key as a bearer)', async () => {
    const mcp = await overStdio([keyed.baseUrl, '--token', 'sekret']);
    try {
      expect((await call(mcp.client, 'echo', { message: 'echo bearer' })).content[0]).toEqual({ type: 'text', text: 'bearer' });
    } finally {
      await mcp.close();
    }
  });

  it('a file argument with neither url nor data is an isError result', async () => {
    const mcp = await overStdio([agent.baseUrl]);
    try {
      const result = await call(mcp.client, 'echo', { message: 'echo x', files: [{ name: 'empty.txt' }] });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'files[0] needs exactly one of url or data (base64)' }] });
    } finally {
      await mcp.close();
    }
  });
});

describe('taskwire-mcp and a hostile agent', { timeout: 60_000 }, () => {
  it('what the agent wrote reaches stderr and error results without control, bidi or zero-width characters', async () => {
    const evil = 'Evil\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rforged\u009b31m\u202e\u2066\u200b\ufeffend';
    const card = {
      name: evil,
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a', protocolBinding: `NOPE${evil}`, protocolVersion: '1.0' }],
      capabilities: {},
      skills: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    };
    const server = createHttpServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const mcp = await overStdio([`http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
    try {
      const result = await call(mcp.client, 'send_message', { message: 'hi' });
      expect(result.isError).toBe(true);
      for (const text of [mcp.stderr(), textOf(result)]) {
        expect(text).toContain('Evil]52;c;ZXZpbA==[2Jforged31mend');
        expect(text).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/);
      }
    } finally {
      await mcp.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
