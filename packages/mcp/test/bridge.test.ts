// The bridge end to end: the SDK's Client over stdio (the taskwire-mcp
// process) and over Streamable HTTP, against the reference agent.
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { createClient } from '@taskwire/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connected } from './kit.js';
import { call, overHttp, overStdio, startAgent, textOf } from './kit.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

describe.each([
  ['stdio', () => overStdio([agent.baseUrl])],
  ['Streamable HTTP', () => overHttp(agent.baseUrl)],
] as const)('the bridge over %s', { timeout: 60_000 }, (binding, connect) => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect();
  }, 30_000);
  afterAll(async () => {
    await mcp?.close();
  });

  it('lists a tool per skill of the card and the task tools', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['cancel_task', 'echo', 'get_task', 'list_tasks', 'quote', 'slow']);
    const echo = tools.find((t) => t.name === 'echo')!;
    expect(echo.description).toContain('Completes at once with your text.');
    expect(echo.description).toContain('"echo hello"');
    expect(Object.keys(echo.inputSchema.properties ?? {}).sort()).toEqual(['contextId', 'data', 'files', 'message', 'taskId']);
    expect(echo.inputSchema.required).toEqual(['message']);
  });

  it('echo: the text as text, the task in _meta', async () => {
    const result = await call(mcp.client, 'echo', { message: 'echo hello' });
    expect(result.isError).toBeFalsy();
    expect(result.content[0]).toEqual({ type: 'text', text: 'hello' });
    expect(result._meta).toMatchObject({ state: 'completed', taskId: expect.any(String), contextId: expect.any(String) });
    const got = await call(mcp.client, 'get_task', { taskId: result._meta!.taskId });
    expect(got._meta).toMatchObject({ state: 'completed', taskId: result._meta!.taskId });
    expect(textOf(got)).toContain('hello');
  });

  it('slow 5 100: progress notifications while the call runs, then the streamed artifact', async () => {
    const progress: { progress: number; message?: string }[] = [];
    const result = await call(mcp.client, 'slow', { message: 'slow 5 100' }, { onprogress: (p) => progress.push(p) });
    expect(result._meta).toMatchObject({ state: 'completed' });
    // Each notification says a state or an artifact, in order. The first steps may fold into the stream's first
    // task snapshot on a loaded machine, but the run's steps 100 ms apart come as they go: several of its
    // working steps, not one notification at the end.
    for (const { message } of progress) expect(message).toMatch(/^(submitted|working( [1-5]\/5)?|artifact output|completed: Done: 5 chunks\.)$/);
    expect(new Set(progress.map((p) => p.message).filter((m) => /^working [1-4]\/5$/.test(m ?? ''))).size).toBeGreaterThanOrEqual(2);
    expect(textOf(result)).toMatch(/1[\s\S]*2[\s\S]*3/);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
  });

  it('quote: input-required says what the agent asks and how to continue; taskId continues it', async () => {
    const asked = await call(mcp.client, 'quote', { message: 'provide a sunset quote' });
    expect(asked.isError).toBeFalsy();
    expect(asked._meta).toMatchObject({ state: 'input-required' });
    const taskId = asked._meta!.taskId as string;
    expect(textOf(asked)).toContain('Do you want Instagram, Pinterest, or General?');
    expect(textOf(asked)).toContain(`call quote again with taskId "${taskId}"`);
    const done = await call(mcp.client, 'quote', { message: 'insta', taskId });
    expect(done._meta).toMatchObject({ state: 'completed', taskId });
    expect(textOf(done).length).toBeGreaterThan(0);
  });

  it('fail and reject: isError with the reason; auth-required: isError saying what to do', async () => {
    const failed = await call(mcp.client, 'echo', { message: 'fail' });
    expect(failed.isError).toBe(true);
    expect(failed._meta).toMatchObject({ state: 'failed' });
    expect(textOf(failed)).toContain('The agent failed the task');
    const rejected = await call(mcp.client, 'echo', { message: 'reject' });
    expect(rejected).toMatchObject({ isError: true, _meta: { state: 'rejected' } });
    const auth = await call(mcp.client, 'echo', { message: 'auth' });
    expect(auth).toMatchObject({ isError: true, _meta: { state: 'auth-required' } });
    expect(textOf(auth)).toContain('The agent needs authorization');
  });

  it('cancel_task cancels a running task; list_tasks lists tasks (over HTTP, those of its own session only)', async () => {
    const a2a = await createClient(agent.baseUrl);
    const started = await a2a.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'slow 100 1000' }] }, configuration: { returnImmediately: true } });
    const id = 'task' in started ? started.task.id : '';
    if (binding === 'Streamable HTTP') {
      // A task the session did not start is not its to cancel (sessions share the agent credentials).
      const refused = await call(mcp.client, 'cancel_task', { taskId: id });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('This session cannot use task');
      await a2a.cancelTask({ id });
      await a2a.close();
      return;
    }
    const canceled = await call(mcp.client, 'cancel_task', { taskId: id });
    expect(canceled._meta).toMatchObject({ state: 'canceled', taskId: id });
    const listed = await call(mcp.client, 'list_tasks', { state: 'canceled' });
    expect((listed.structuredContent as { tasks: { taskId: string }[] }).tasks.map((t) => t.taskId)).toContain(id);
    await a2a.close();
  });

  it('canceling the MCP request cancels the A2A task', async () => {
    const a2a = await createClient(agent.baseUrl);
    const abort = new AbortController();
    const contextId = crypto.randomUUID();
    const working = new Promise<void>((resolve) => {
      const onprogress = (p: { message?: string }) => p.message?.startsWith('working') && resolve();
      call(mcp.client, 'slow', { message: 'slow 100 1000', contextId }, { signal: abort.signal, onprogress }).catch(() => {});
    });
    await working;
    const { tasks } = await a2a.listTasks({ contextId });
    expect(tasks).toHaveLength(1);
    abort.abort();
    const task = await a2a.waitForTask(tasks[0]!.id);
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    await a2a.close();
  });

  it('the card and the tasks the session touched are resources', async () => {
    const result = await call(mcp.client, 'echo', { message: 'echo resource' });
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain('a2a://card');
    expect(uris).toContain(`a2a://tasks/${result._meta!.taskId as string}`);
    const card = await mcp.client.readResource({ uri: 'a2a://card' });
    expect(JSON.parse((card.contents[0] as { text: string }).text)).toMatchObject({ skills: expect.any(Array) });
    const task = await mcp.client.readResource({ uri: `a2a://tasks/${result._meta!.taskId as string}` });
    expect(JSON.parse((task.contents[0] as { text: string }).text)).toMatchObject({ id: result._meta!.taskId, status: { state: 'TASK_STATE_COMPLETED' } });
  });
});
