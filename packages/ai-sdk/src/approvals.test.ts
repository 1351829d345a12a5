import type { SendMessageResponse, Task } from '@taskwire/core';
import { createMemoryTaskStore } from '@taskwire/core';
import { tool, ToolLoopAgent } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { a2aAgent } from './a2a-agent.js';
import { answerApprovals } from './approvals.js';
import type { ApprovalRequestData } from './shapes.js';
import type { Prompt, Served } from './test-kit.js';
import { finish, lastOf, scriptedModel, serve, testCard, text, toolCall, userMessage } from './test-kit.js';

const opened: Served[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A fresh AI SDK agent whose `deleteFile` tool needs the user's approval; `deleted` records what the tool did. */
function fileAgent() {
  const deleted: string[] = [];
  const model = scriptedModel((prompt: Prompt) => {
    const last = lastOf(prompt);
    if (last.role === 'user') return [toolCall('deleteFile', { path: 'notes.txt' }), finish('tool-calls')];
    const denied = JSON.stringify(last).includes('execution-denied');
    return [...text(denied ? 'I left notes.txt alone.' : 'notes.txt is gone.'), finish()];
  });
  const deleteFile = tool({
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      deleted.push(path);
      return `deleted ${path}`;
    },
  });
  const agent = new ToolLoopAgent({ model, tools: { deleteFile }, toolApproval: { deleteFile: 'user-approval' } });
  return { agent, model, deleted };
}

const taskOf = (result: SendMessageResponse): Task => {
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
};

describe('a2aAgent: tool approvals', () => {
  it('asks with the pending call in a data part; an approval sent to another replica (same store) runs the tool and completes', async () => {
    const store = createMemoryTaskStore();
    const first = fileAgent();
    const second = fileAgent();
    const one = await serve(a2aAgent(first.agent), testCard('one'), { store });
    const two = await serve(a2aAgent(second.agent), testCard('two'), { store });
    opened.push(one, two);

    const asked = taskOf(await (await one.client('JSONRPC')).sendMessage({ message: userMessage('Delete notes.txt') }));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const request = asked.status.message!.parts.flatMap((p) => ('data' in p ? [p.data as ApprovalRequestData] : []));
    expect(request).toEqual([
      { type: 'tool-approval-request', approvalId: expect.any(String), toolCallId: 'call-deleteFile', toolName: 'deleteFile', input: { path: 'notes.txt' } },
    ]);
    expect(first.deleted).toEqual([]);

    const answer = { type: 'tool-approval-response', approvalId: request[0]!.approvalId, approved: true };
    const done = taskOf(
      await (await two.client('GRPC')).sendMessage({ message: userMessage([{ data: answer }], { taskId: asked.id, contextId: asked.contextId }) }),
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.status.message?.parts).toEqual([{ text: 'notes.txt is gone.' }]);
    expect(second.deleted).toEqual(['notes.txt']);
    expect(first.deleted).toEqual([]);
    // The second replica's model saw the whole loop, rebuilt from the task's history: the call and its result.
    const roles = second.model.doStreamCalls.at(-1)!.prompt.map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool']);
  });

  it('a plain-text "deny" denies the call: the tool does not run and the model reads the denial', async () => {
    const { agent, deleted } = fileAgent();
    const served = await serve(a2aAgent(agent), testCard('one'));
    opened.push(served);
    const client = await served.client('JSONRPC');
    const asked = taskOf(await client.sendMessage({ message: userMessage('Delete notes.txt') }));
    const done = taskOf(await client.sendMessage({ message: userMessage('deny', { taskId: asked.id }) }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.status.message?.parts).toEqual([{ text: 'I left notes.txt alone.' }]);
    expect(deleted).toEqual([]);
  });
});

describe('answerApprovals', () => {
  const pending: ApprovalRequestData[] = [
    { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1', toolName: 'pay', input: {} },
    { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2', toolName: 'ship', input: {} },
  ];
  const decisions = (parts: Parameters<typeof userMessage>[0]) =>
    answerApprovals(pending, userMessage(parts)).content.map((c) => ('approved' in c ? [c.approvalId, c.approved, c.reason] : []));

  it('reads approve / deny texts for every pending call, and other text as a denial with that text as the reason', () => {
    expect(decisions('Approve')).toEqual([['a1', true, undefined], ['a2', true, undefined]]);
    expect(decisions('no thanks')).toEqual([['a1', false, 'The user denied this call'], ['a2', false, 'The user denied this call']]);
    expect(decisions('only if it is cheaper')).toEqual([
      ['a1', false, 'The user answered: only if it is cheaper'],
      ['a2', false, 'The user answered: only if it is cheaper'],
    ]);
  });

  it('takes data answers per call and denies the calls they leave out', () => {
    expect(decisions([{ data: { type: 'tool-approval-response', approvalId: 'a2', approved: true, reason: 'fine' } }])).toEqual([
      ['a1', false, 'The user did not answer this approval'],
      ['a2', true, 'fine'],
    ]);
  });
});
