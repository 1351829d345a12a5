import { TaskState } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { AgentEvent } from '@a2a-js/sdk/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Served } from './servers.js';
import { card, serveOnA2AJs, serveOnTaskwire } from './servers.js';

/** What an executor saw of its call's context. */
interface Seen {
  readonly requestTenant: string;
  readonly tenant: string | undefined;
  readonly user: { readonly isAuthenticated: boolean; readonly userName: string };
  readonly requestedExtensions: readonly string[] | undefined;
}

/** Completes every task at once, recording what `requestContext.context` and `request` carried. */
class ContextRecorder implements AgentExecutor {
  readonly seen: Seen[] = [];

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { user, tenant, requestedExtensions } = ctx.context;
    this.seen.push({ requestTenant: ctx.request.tenant, tenant, user: { isAuthenticated: user?.isAuthenticated ?? false, userName: user?.userName ?? '' }, requestedExtensions: requestedExtensions && [...requestedExtensions] });
    bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
    bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
    bus.finished();
  }

  async cancelTask(): Promise<void> {}
}

const EXTENSION = 'https://example.com/ext/trace/v1';
/** A card that declares the one extension (a2a-js passes on only the requested extensions its card declares). */
const withExtension = { ...card('Context'), capabilities: { streaming: true, extensions: [{ uri: EXTENSION, description: 'Traces', required: false }] } };
const message = () => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] });
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0', 'a2a-extensions': `${EXTENSION}, https://example.com/ext/undeclared/v1` };

/** The same calls, as raw HTTP, to either server: a JSON-RPC send naming a tenant in its params, a REST send under a tenant's path, one with no tenant. */
async function calls(server: Served): Promise<void> {
  const answers = [
    await fetch(`${server.url}/a2a/jsonrpc`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { tenant: 'acme', message: message() } }) }),
    await fetch(`${server.url}/a2a/rest/globex/message:send`, { method: 'POST', headers, body: JSON.stringify({ message: message() }) }),
    await fetch(`${server.url}/a2a/rest/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ message: message() }) }),
  ];
  for (const answer of answers) {
    const body = (await answer.json()) as { error?: unknown; result?: unknown };
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body.error).toBeUndefined();
  }
}

describe("an a2a-js executor's call context on Taskwire is the one a2a-js 1.3.0 gives it", () => {
  const onA2AJs = new ContextRecorder();
  const onTaskwire = new ContextRecorder();
  const servers: Served[] = [];
  beforeAll(async () => {
    servers.push(await serveOnA2AJs(onA2AJs, withExtension), await serveOnTaskwire(onTaskwire, withExtension, { adapter: { card: withExtension } }));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('carries the tenant (from the params or the path), the user and the requested extensions the card declares', async () => {
    await calls(servers[0]!);
    await calls(servers[1]!);
    // What a2a-js gives, measured rather than assumed; then Taskwire must give the same.
    expect(onA2AJs.seen.map((s) => s.tenant)).toEqual(['acme', 'globex', undefined]);
    expect(onA2AJs.seen[0]).toMatchObject({ requestTenant: 'acme', user: { isAuthenticated: false }, requestedExtensions: [EXTENSION] });
    expect(onTaskwire.seen).toEqual(onA2AJs.seen);
  });
});
