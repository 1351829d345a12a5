// The Streamable HTTP endpoint's sessions: a refused initialize leaves no
// server behind, idle sessions end, their number is capped, MCP task
// records go after their lifetime, and one session cannot reach another's
// A2A tasks unless both hold the bridge's token.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentLink } from '../src/agent-link.js';
import { createMcpServer } from '../src/create-server.js';
import type { HttpBridge, ServeHttpOptions } from '../src/http-server.js';
import { serveHttp } from '../src/http-server.js';
import { BridgeTaskStore } from '../src/task-store.js';
import { call, startAgent, textOf } from './kit.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

let agent: RunningAgent;
let link: AgentLink;
beforeAll(async () => {
  agent = await startAgent();
  link = new AgentLink(agent.baseUrl);
});
afterAll(async () => {
  await link?.close();
  await agent?.close();
});

/** A bridge in this process that counts the servers it made and closed; `hold` runs before each server is made. */
async function counted(options: Partial<ServeHttpOptions> = {}, hold?: () => Promise<void>): Promise<{ bridge: HttpBridge; made: () => number; closed: () => number }> {
  let made = 0;
  let closed = 0;
  const bridge = await serveHttp({
    port: 0,
    ...options,
    newServer: async ({ scope }) => {
      made++;
      await hold?.();
      const server: McpServer = await createMcpServer({ agent: link, scope });
      const close = server.close.bind(server);
      let once = false;
      server.close = async () => {
        if (!once) closed++;
        once = true;
        await close();
      };
      return server;
    },
  });
  return { bridge, made: () => made, closed: () => closed };
}

const init = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(INIT) });

/** An MCP client connected to `url`, with the bridge's token when given. */
async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined));
  return client;
}

describe('Streamable HTTP sessions', () => {
  it('an initialize the transport refuses leaves no session and no server behind', async () => {
    const { bridge, made, closed } = await counted();
    try {
      const refused = await init(bridge.url, { accept: 'application/json' }); // Streamable HTTP needs both types
      expect(refused.status).toBe(406);
      await refused.body?.cancel();
      expect(made()).toBe(1);
      expect(closed()).toBe(1);
      expect(bridge.sessions).toBe(0);
    } finally {
      await bridge.close();
    }
  });

  it('sessions are capped: an initialize past the cap gets 503 and makes no server', async () => {
    const { bridge, made } = await counted({ maxSessions: 2 });
    try {
      for (const _ of [1, 2]) {
        const ok = await init(bridge.url);
        expect(ok.status).toBe(200);
        await ok.body?.cancel();
      }
      const full = await init(bridge.url);
      expect(full.status).toBe(503);
      expect(made()).toBe(2);
      expect(bridge.sessions).toBe(2);
    } finally {
      await bridge.close();
    }
  });

  it('the cap holds against a burst: initializes under way count, so no more than the cap become sessions', async () => {
    // Every server is made only once all 8 initializes were either refused or are making one, so all 8 race the cap.
    let refused = 0;
    let entered = 0;
    let release!: () => void;
    const all = new Promise<void>((resolve) => (release = resolve));
    const settled = () => entered + refused === 8 && release();
    const { bridge, made } = await counted({ maxSessions: 3 }, async () => (entered++, settled(), all));
    try {
      const statuses = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const res = await init(bridge.url);
          if (res.status === 503) (refused++, settled());
          await res.body?.cancel();
          return res.status;
        }),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      expect(statuses.filter((status) => status === 503)).toHaveLength(5);
      expect(made()).toBe(3);
      expect(bridge.sessions).toBe(3);
    } finally {
      await bridge.close();
    }
  });

  it('a session ends after its idle time, its server closed', async () => {
    const { bridge, closed } = await counted({ sessionIdleMs: 300 });
    try {
      const ok = await init(bridge.url);
      expect(ok.status).toBe(200);
      await ok.body?.cancel();
      await vi.waitFor(() => expect(bridge.sessions).toBe(0), { timeout: 20_000, interval: 50 });
      expect(closed()).toBe(1);
    } finally {
      await bridge.close();
    }
  });
});

describe("one session and another's A2A tasks", () => {
  it("without a token, a session cannot read, cancel, list, continue or open another session's task", { timeout: 60_000 }, async () => {
    const { bridge } = await counted();
    const [alice, mallory] = [await connect(bridge.url), await connect(bridge.url)];
    try {
      const sent = await call(alice, 'echo', { message: 'echo private words' });
      const taskId = sent._meta!.taskId as string;
      const contextId = sent._meta!.contextId as string;
      expect((await call(alice, 'get_task', { taskId })).isError).toBeFalsy();

      for (const [name, args] of [
        ['get_task', { taskId }],
        ['cancel_task', { taskId }],
        ['echo', { message: 'echo more', taskId }],
        ['echo', { message: 'echo more', contextId }],
        ['list_tasks', { contextId }],
      ] as const) {
        const refused = await call(mallory, name, args);
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused), name).toContain('This session cannot use');
        expect(textOf(refused), name).not.toContain('private words');
      }
      expect(textOf(await call(mallory, 'list_tasks', {}))).not.toContain(taskId);
      expect(textOf(await call(alice, 'list_tasks', {}))).toContain(taskId);
      await expect(mallory.readResource({ uri: `a2a://tasks/${taskId}` })).rejects.toThrow(/cannot use task/);
    } finally {
      await Promise.all([alice.close(), mallory.close()]);
      await bridge.close();
    }
  });

  it("sessions that present the bridge's token share one principal, so they share tasks", { timeout: 60_000 }, async () => {
    const { bridge } = await counted({ token: 'shared-bridge-token' });
    const [first, second] = [await connect(bridge.url, 'shared-bridge-token'), await connect(bridge.url, 'shared-bridge-token')];
    try {
      const taskId = (await call(first, 'echo', { message: 'echo shared' }))._meta!.taskId as string;
      const seen = await call(second, 'get_task', { taskId });
      expect(seen.isError).toBeFalsy();
      expect(seen._meta).toMatchObject({ taskId, state: 'completed' });
    } finally {
      await Promise.all([first.close(), second.close()]);
      await bridge.close();
    }
  });
});

describe('MCP task records', () => {
  it('are removed after their lifetime, the bridge binding with the SDK record', async () => {
    const store = new BridgeTaskStore(100);
    const request = { method: 'tools/call', params: { name: 'echo', arguments: {}, task: { ttl: 100 } } };
    const task = await store.createTask({ ttl: 100 }, 1, request);
    store.bind(task.taskId, 'a2a-task');
    await store.finish(task.taskId, { content: [{ type: 'text', text: 'done' }] });
    const plain = await store.createTask({ ttl: null }, 2, { method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(store.size).toBe(2);
    await vi.waitFor(() => expect(store.size).toBe(0), { timeout: 20_000, interval: 50 });
    expect(await store.getTask(task.taskId)).toBeNull();
    expect(store.isPlain(plain.taskId)).toBe(false);
    store.cleanup();
  });
});
