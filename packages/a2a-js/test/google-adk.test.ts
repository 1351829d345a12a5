// Google ADK for TypeScript (@google/adk 2.x) and Taskwire, both ways, over
// real HTTP on 127.0.0.1: an ADK LlmAgent (fake model) served by Taskwire
// through ADK's own A2AAgentExecutor (an @a2a-js/sdk 0.3 executor) and
// fromA2AExecutor, nothing in between, streaming its answer and pausing on a
// long-running tool as input-required; and ADK's RemoteA2AAgent calling the reference agent served by Taskwire.
import type { Event as AdkEvent } from '@google/adk';
import { InMemoryRunner, RemoteA2AAgent } from '@google/adk';
import type { A2AClient } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import type { Part, StreamEvent } from '@taskwire/core';
import { createMemoryTaskStore, TaskService } from '@taskwire/core';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import type { A2AServer } from '@taskwire/server-http';
import { httpInterfaces, serveA2A } from '@taskwire/server-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromA2AExecutor } from '../src/index.js';
import { ANSWER, APPROVAL_TOOL, adkExecutor } from './fixtures/google-adk.js';
import { card } from './servers.js';

const user = (parts: Part[], taskId?: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts, ...(taskId && { taskId }) } });
const textsOf = (parts: readonly Part[] | undefined) => (parts ?? []).flatMap((p) => ('text' in p ? [p.text] : []));

describe('an ADK LlmAgent (fake model) served over Taskwire', { timeout: 60_000 }, () => {
  const served: { service: TaskService; server: A2AServer; client: A2AClient }[] = [];
  const serve = async (streaming: boolean) => {
    const service = new TaskService({ store: createMemoryTaskStore(), agent: fromA2AExecutor(adkExecutor(streaming), { protocol: '0.3' }), card: card('ADK helper') });
    const server = await serveA2A({ service, card: (base) => ({ ...card('ADK helper'), supportedInterfaces: httpInterfaces(base) }) });
    const client = await createClient(server.url);
    served.push({ service, server, client });
    return client;
  };
  afterAll(async () => {
    for (const { service, server, client } of served) {
      await client.close();
      await server.close();
      await service.close();
    }
  });

  it("streams the model's answer as chunks of one artifact, then completes the task with the whole answer", async () => {
    const client = await serve(true);
    const events: StreamEvent[] = [];
    for await (const event of client.sendStreamingMessage(user([{ text: 'hi' }]))) events.push(event);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e.response ? [textsOf(e.response.artifactUpdate.artifact.parts).join('')] : []));
    expect(chunks.slice(0, ANSWER.length)).toEqual(ANSWER);
    const last = events.at(-1)!.response;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = 'statusUpdate' in last ? last.statusUpdate.taskId : '';
    const task = await client.getTask({ id: taskId });
    expect(task.artifacts?.map((a) => textsOf(a.parts).join(''))).toEqual([ANSWER.join('')]);
  });

  it('pauses on a long-running tool as input-required (the call in the status message), and the answer on the same task completes it', async () => {
    const client = await serve(false);
    const first = await client.sendMessage(user([{ text: 'I want a refund' }]));
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const call = first.task.status.message?.parts.find((p) => 'data' in p && (p.data as { name?: string }).name === APPROVAL_TOOL);
    expect(call?.metadata).toMatchObject({ adk_type: 'function_call', adk_is_long_running: true });
    const { id } = (call as { data: { id: string } }).data;

    const answer = { data: { id, name: APPROVAL_TOOL, response: { approved: true } }, metadata: { adk_type: 'function_response' } };
    const second = await client.sendMessage(user([answer], first.task.id));
    if (!('task' in second)) throw new Error('expected a task');
    expect(second.task.id).toBe(first.task.id);
    expect(second.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.task.artifacts?.flatMap((a) => textsOf(a.parts))).toContain('Refund decision: {"approved":true}');
  });
});

describe("ADK's RemoteA2AAgent calling the reference agent served by Taskwire", { timeout: 60_000 }, () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
  });
  afterAll(() => agent?.close(0));

  /** Runs `text` through an ADK runner whose root agent is the remote Taskwire agent; the events ADK yields. */
  async function ask(text: string): Promise<AdkEvent[]> {
    const remote = new RemoteA2AAgent({ name: 'taskwire_reference', description: 'The Taskwire reference agent', agentCard: agent.baseUrl });
    const runner = new InMemoryRunner({ agent: remote, appName: 'adk-calls-taskwire' });
    const session = await runner.sessionService.createSession({ appName: 'adk-calls-taskwire', userId: 'ada' });
    const events: AdkEvent[] = [];
    for await (const event of runner.runAsync({ userId: 'ada', sessionId: session.id, newMessage: { role: 'user', parts: [{ text }] } })) events.push(event);
    return events;
  }
  const textOf = (events: AdkEvent[]) => events.flatMap((e) => (e.partial ? [] : (e.content?.parts ?? []).map((p) => p.text ?? ''))).join('');

  it("gets the agent's answer (echo)", async () => {
    const events = await ask('echo hello from ADK');
    expect(events.some((e) => e.errorMessage)).toBe(false);
    expect(textOf(events)).toBe('hello from ADK');
  });

  it('follows a streamed task (slow) to its end: every chunk of the artifact, then the final message', async () => {
    const events = await ask('slow 3 20');
    expect(events.some((e) => e.errorMessage)).toBe(false);
    const text = textOf(events);
    expect(text).toBe('chunk 1 of 3\nchunk 2 of 3\nchunk 3 of 3\nDone: 3 chunks.');
  });
});
