import type { A2AClient } from '@taskwire/client';
import type { Agent, Part, StreamResponse } from '@taskwire/core';
import { ToolLoopAgent } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aAgent } from './a2a-agent.js';
import { a2aTool } from './a2a-tool.js';
import type { A2AToolOutput } from '@taskwire/client';
import type { Prompt, Served } from './test-kit.js';
import { BINDINGS, finish, lastOf, scriptedModel, serve, testCard, text, toolCall, toolOutputs, userMessage } from './test-kit.js';

/**
 * The remote agent (plain Taskwire): `book` asks which day, then books it;
 * `wait` works until it is canceled; anything else streams three chunks.
 */
const remoteAgent: Agent = async (ctx) => {
  if (ctx.isContinuation) {
    await ctx.artifact({ name: 'booking', text: `Booked for ${ctx.text}` });
    await ctx.complete('booked');
    return;
  }
  if (ctx.text.startsWith('book')) return ctx.inputRequired('Which day?');
  if (ctx.text.startsWith('wait')) {
    await ctx.working('waiting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return;
  }
  const words = ['one', 'two', 'three'];
  for (const [i, word] of words.entries()) {
    await ctx.working(`chunk ${i + 1}`);
    await ctx.artifact({ name: 'answer', text: i === 0 ? word : ` ${word}` }, { append: i > 0, lastChunk: i === words.length - 1 });
  }
  await ctx.complete('done');
};

/** The caller's model: sends the user's text to the remote, answers its question with "Friday", then reports its answer. */
function callerModel() {
  return scriptedModel((prompt: Prompt) => {
    const last = lastOf(prompt);
    if (last.role === 'user') {
      const said = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
      return [toolCall('remote', { message: said }, 'call-1'), finish('tool-calls')];
    }
    const output = toolOutputs(prompt)[0] as A2AToolOutput;
    if (output.state === 'input-required') return [toolCall('remote', { message: 'Friday', taskId: output.taskId }, 'call-2'), finish('tool-calls')];
    return [...text(`Remote said: ${output.text}`), finish()];
  });
}

const statusData = (events: StreamResponse[]) =>
  events.flatMap((e) => ('statusUpdate' in e ? (e.statusUpdate.status.message?.parts ?? []) : [])).flatMap((p: Part) => ('data' in p ? [p.data as Record<string, unknown>] : []));
const lastState = (events: StreamResponse[]) => {
  const last = events.at(-1)!;
  return 'statusUpdate' in last ? last.statusUpdate.status.state : 'task' in last ? last.task.status.state : 'message';
};

for (const binding of BINDINGS) {
  describe(`two agents over ${binding}: an AI SDK agent calls another A2A agent through a2aTool`, () => {
    const opened: Served[] = [];
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    async function setup(toolApproval?: Record<string, 'user-approval'>) {
      const remote = await serve(remoteAgent, testCard('remote'));
      opened.push(remote);
      const remoteClient = await remote.client(binding);
      const caller = new ToolLoopAgent({ model: callerModel(), tools: { remote: a2aTool({ client: remoteClient }) }, ...(toolApproval && { toolApproval }) });
      const front = await serve(a2aAgent(caller), testCard('caller'));
      opened.push(front);
      return { remote, remoteClient, client: await front.client(binding) };
    }

    async function streamed(client: A2AClient, message = userMessage('tell me')): Promise<StreamResponse[]> {
      const out: StreamResponse[] = [];
      for await (const event of client.stream('SendStreamingMessage', { message })) out.push(event.response);
      return out;
    }

    it('streams the remote task as preliminary tool results; its artifact is the tool result', async () => {
      const { client } = await setup();
      const events = await streamed(client);
      expect(lastState(events)).toBe('TASK_STATE_COMPLETED');
      const results = statusData(events).filter((d) => d.type === 'tool-result');
      const preliminary = results.filter((d) => d.preliminary === true).map((d) => (d.output as A2AToolOutput).state);
      // The SDK flags every value the tool yields as preliminary, then repeats the last one as the final result.
      expect(preliminary).toContain('working');
      expect(preliminary.at(-1)).toBe('completed');
      const final = results.find((d) => d.preliminary === undefined)!.output as A2AToolOutput;
      expect(final).toMatchObject({ state: 'completed', text: 'one two three', message: 'done', artifacts: [{ name: 'answer', text: 'one two three' }] });
      const answer = events.at(-1)!;
      expect('statusUpdate' in answer && answer.statusUpdate.status.message?.parts).toEqual([{ text: 'Remote said: one two three' }]);
    });

    it('surfaces the remote agent\'s question as a result the model answers on the same task', async () => {
      const { client, remoteClient } = await setup();
      const events = await streamed(client, userMessage('book a table'));
      expect(lastState(events)).toBe('TASK_STATE_COMPLETED');
      const finals = statusData(events).filter((d) => d.type === 'tool-result' && d.preliminary === undefined).map((d) => d.output as A2AToolOutput);
      expect(finals.map((o) => o.state)).toEqual(['input-required', 'completed']);
      expect(finals[0]!.question).toContain('Which day?');
      expect(finals[1]!.taskId).toBe(finals[0]!.taskId);
      const remoteTask = await remoteClient.getTask({ id: finals[0]!.taskId! });
      expect(remoteTask.history?.filter((m) => m.role === 'ROLE_USER').map((m) => (m.parts[0] as { text: string }).text)).toEqual(['book a table', 'Friday']);
      const answer = events.at(-1)!;
      expect('statusUpdate' in answer && answer.statusUpdate.status.message?.parts).toEqual([{ text: 'Remote said: Booked for Friday' }]);
    });

    it('an approval round trip: the call waits in input-required, and "approve" on the task makes it', async () => {
      const { client, remote } = await setup({ remote: 'user-approval' });
      const asked = await streamed(client);
      expect(lastState(asked)).toBe('TASK_STATE_INPUT_REQUIRED');
      const request = statusData(asked).find((d) => d.type === 'tool-approval-request');
      expect(request).toMatchObject({ toolName: 'remote', input: { message: 'tell me' } });
      expect((await remote.store.list({ owner: '' })).tasks).toHaveLength(0);
      const last = asked.at(-1)!;
      const taskId = 'statusUpdate' in last ? last.statusUpdate.taskId : '';
      const done = await streamed(client, userMessage('approve', { taskId }));
      expect(lastState(done)).toBe('TASK_STATE_COMPLETED');
      expect((await client.getTask({ id: taskId })).status.message?.parts).toEqual([{ text: 'Remote said: one two three' }]);
      expect((await remote.store.list({ owner: '' })).tasks).toHaveLength(1);
    });

    it('a cancel of the caller\'s task aborts its model and cancels the remote task', async () => {
      const { client, remoteClient } = await setup();
      const events: StreamResponse[] = [];
      let remoteTaskId: string | undefined;
      for await (const event of client.stream('SendStreamingMessage', { message: userMessage('wait for it') })) {
        events.push(event.response);
        const running = statusData([event.response]).find((d) => d.type === 'tool-result' && d.preliminary === true);
        if (running && remoteTaskId === undefined) {
          remoteTaskId = (running.output as A2AToolOutput).taskId;
          const taskId = 'statusUpdate' in event.response ? event.response.statusUpdate.taskId : '';
          await client.cancelTask({ id: taskId });
        }
      }
      expect(lastState(events)).toBe('TASK_STATE_CANCELED');
      expect(remoteTaskId).toBeDefined();
      const remoteTask = await remoteClient.waitForTask(remoteTaskId!);
      expect(remoteTask.status.state).toBe('TASK_STATE_CANCELED');
    });
  });
}
