// MCP tasks (2025-11-25): a task-augmented tools/call is an MCP task that
// follows the A2A task; the SDK's own Client over stdio and Streamable HTTP.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallToolResult, Task as McpTask } from '@modelcontextprotocol/sdk/types.js';
import { CallToolResultSchema, ElicitRequestSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createClient } from '@taskwire/client';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connected } from './kit.js';
import { overHttp, overStdio, startAgent, textOf } from './kit.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
});

/** Calls tool `name` as an MCP task (`params.task`) and returns the task the server created. */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>): Promise<McpTask> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return created.task;
}

/** The task's result (`tasks/result` waits until the task ends). */
async function resultOf(client: Client, taskId: string): Promise<CallToolResult> {
  return (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
}

const elicitation = { capabilities: { elicitation: { form: {} } } };

describe.each([
  ['stdio', (options?: typeof elicitation) => overStdio([agent.baseUrl], {}, options)],
  ['Streamable HTTP', (options?: typeof elicitation) => overHttp(agent.baseUrl, options)],
] as const)('MCP tasks over %s', { timeout: 60_000 }, (_, connect) => {
  let mcp: Connected;
  beforeAll(async () => {
    mcp = await connect(elicitation);
  }, 30_000);
  afterAll(async () => {
    await mcp?.close();
  });

  it('declares tasks for tools/call, list and cancel; the message tools are task-capable', async () => {
    expect(mcp.client.getServerCapabilities()?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await mcp.client.listTools();
    expect(tools.find((t) => t.name === 'slow')?.execution).toEqual({ taskSupport: 'optional' });
  });

  it('slow 3 20 as a task: a handle at once, then the same result as a plain call, listed and readable', async () => {
    const task = await callAsTask(mcp.client, 'slow', { message: 'slow 3 20' });
    expect(task).toMatchObject({ taskId: expect.any(String), status: 'working' });
    const result = await resultOf(mcp.client, task.taskId);
    expect(result._meta).toMatchObject({ state: 'completed', taskId: expect.any(String) });
    expect(result._meta!.taskId).not.toBe(task.taskId); // the A2A task id, for the model to continue with
    expect(textOf(result)).toContain('chunk 3 of 3');
    expect(await mcp.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ taskId: task.taskId, status: 'completed' });
    const { tasks } = await mcp.client.experimental.tasks.listTasks();
    expect(tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it('input-required: the task is input_required while the elicitation waits, and the answer completes it', async () => {
    let status: string | undefined;
    let taskId = '';
    mcp.client.setRequestHandler(ElicitRequestSchema, async () => {
      status = (await mcp.client.experimental.tasks.getTask(taskId)).status;
      return { action: 'accept', content: { answer: 'insta' } };
    });
    taskId = (await callAsTask(mcp.client, 'quote', { message: 'provide a sunset quote' })).taskId;
    const result = await resultOf(mcp.client, taskId);
    expect(status).toBe('input_required');
    expect(result._meta).toMatchObject({ state: 'completed' });
    expect((await mcp.client.experimental.tasks.getTask(taskId)).status).toBe('completed');
  });

  it('a failed A2A task is a failed MCP task whose result says why', async () => {
    const task = await callAsTask(mcp.client, 'echo', { message: 'fail' });
    const result = await resultOf(mcp.client, task.taskId);
    expect(result.isError).toBe(true);
    expect((await mcp.client.experimental.tasks.getTask(task.taskId)).status).toBe('failed');
  });

  /** Starts `slow 100 1000` as an MCP task; resolves once it is working, with the A2A task behind it. */
  async function startSlow(): Promise<{ taskId: string; a2aTaskId: string }> {
    const a2a = await createClient(agent.baseUrl);
    const contextId = crypto.randomUUID();
    let taskId = '';
    const working = new Promise<void>((resolve) => {
      mcp.client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
        if (n.params.taskId === taskId && n.params.status === 'working' && n.params.statusMessage?.startsWith('working')) resolve();
      });
    });
    taskId = (await callAsTask(mcp.client, 'slow', { message: 'slow 100 1000', contextId })).taskId;
    await working;
    const { tasks } = await a2a.listTasks({ contextId });
    await a2a.close();
    expect(tasks).toHaveLength(1);
    return { taskId, a2aTaskId: tasks[0]!.id };
  }

  it('tasks/cancel cancels the A2A task', async () => {
    const { taskId, a2aTaskId } = await startSlow();
    expect((await mcp.client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    const a2a = await createClient(agent.baseUrl);
    expect((await a2a.waitForTask(a2aTaskId)).status.state).toBe('TASK_STATE_CANCELED');
    await a2a.close();
    expect((await resultOf(mcp.client, taskId)).isError).toBe(true);
  });

  it('an A2A task canceled elsewhere ends its MCP task cancelled, with the result saying so', async () => {
    const { taskId, a2aTaskId } = await startSlow();
    const a2a = await createClient(agent.baseUrl);
    await a2a.cancelTask({ id: a2aTaskId });
    await a2a.close();
    const result = await resultOf(mcp.client, taskId);
    expect(result._meta).toMatchObject({ state: 'canceled', taskId: a2aTaskId });
    expect((await mcp.client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
  });
});
