import { Agent, tool } from '@openai/agents';
import type { Task } from '@taskwire/core';
import { createMemoryTaskStore } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { Served } from '@taskwire/reference-agent/adapter-test-kit';
import { abortProbe, artifactText, cancelWhenStarted, lastStatus, serve, streamAndCancel, streamed, userMessage, workingData } from '@taskwire/reference-agent/adapter-test-kit';
import type { Step } from './fake-model.js';
import { FakeModel } from './fake-model.js';
import type { OpenAIAgentOptions } from './openai-agent.js';
import { openaiAgent } from './openai-agent.js';
import { META_KEY } from './shapes.js';

const servers: Served[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(agent: Agent<any, any>, options?: OpenAIAgentOptions, store = createMemoryTaskStore()): Promise<Served> {
  const served = await serve(openaiAgent(agent, options), { store });
  servers.push(served);
  return served;
}

const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => JSON.stringify({ city, celsius: 21 }),
});

/** Calls `name` with `args` first, then answers with `answer`. */
const toolThenAnswer = (name: string, args: unknown, answer: string) => (_request: unknown, call: number): Step =>
  call === 0 ? { calls: [{ name, arguments: args, callId: 'call-1' }] } : { text: [answer] };

describe('openaiAgent', () => {
  it('streams the text deltas as coalesced chunks of one artifact, completes with the final output, usage in the metadata', async () => {
    // 200 deltas as fast as the SDK hands them on: coalesced, far fewer chunks (one per delta without coalescing).
    const deltas = ['Hello', ', ', 'world!', ...Array.from({ length: 197 }, (_, i) => ` ${i}`)];
    const model = new FakeModel(() => ({ text: deltas }));
    const { client } = await start(new Agent({ name: 'Greeter', model }));
    const events = await streamed(client, userMessage('hi'));
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    expect(chunks.length).toBeLessThan(deltas.length / 2);
    expect(chunks.map((c) => [Boolean(c.append), Boolean(c.lastChunk)])).toEqual(chunks.map((_, i) => [i > 0, i === chunks.length - 1]));
    expect(artifactText(events)).toBe(deltas.join(''));
    const status = lastStatus(events);
    expect(status.state).toBe('TASK_STATE_COMPLETED');
    expect(status.message?.parts).toEqual([{ text: deltas.join('') }]);
    const usage = { requests: 1, inputTokens: 11, outputTokens: 7, totalTokens: 18 };
    expect((status.message?.metadata?.[META_KEY] as { usage: unknown }).usage).toEqual(usage);
    const final = events.at(-1)!;
    expect('statusUpdate' in final && final.statusUpdate.metadata?.[META_KEY]).toEqual({ usage });
    const stored = await client.getTask({ id: 'statusUpdate' in final ? final.statusUpdate.taskId : '' });
    expect((stored.status.message?.metadata?.[META_KEY] as { usage: unknown }).usage).toEqual(usage);
  });

  it('gives a follow-up (referencing the earlier task) the earlier history as input', async () => {
    const model = new FakeModel((_r, call) => ({ text: [call === 0 ? 'The capital is Oslo.' : 'About 700,000.'] }));
    const { client } = await start(new Agent({ name: 'Geo', model }));
    const first = (await client.sendMessage({ message: userMessage('Capital of Norway?') })) as { task: Task };
    await client.sendMessage({ message: userMessage('How many live there?', { contextId: first.task.contextId, referenceTaskIds: [first.task.id] }) });
    const input = model.requests[1]!.input as { role: string; content: unknown }[];
    expect(input.map((i) => [i.role, JSON.stringify(i.content)])).toEqual([
      ['user', JSON.stringify('Capital of Norway?')],
      ['assistant', JSON.stringify([{ type: 'output_text', text: 'The capital is Oslo.' }])],
      ['user', JSON.stringify('How many live there?')],
    ]);
  });

  it('shows the tool call and its output as working updates, and answers with the result', async () => {
    const model = new FakeModel(toolThenAnswer('weather', { city: 'Oslo' }, 'It is 21 degrees in Oslo.'));
    const { client } = await start(new Agent({ name: 'Weather', model, tools: [weather] }));
    const events = await streamed(client, userMessage('Weather in Oslo?'));
    expect(workingData(events)).toEqual([
      { type: 'tool-call', callId: 'call-1', toolName: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'tool-output', callId: 'call-1', output: '{"city":"Oslo","celsius":21}' },
    ]);
    expect(lastStatus(events)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'It is 21 degrees in Oslo.' }] } });
  });

  it('shows a handoff as a working update, and the other agent answers', async () => {
    const specialist = new Agent({ name: 'Specialist', model: new FakeModel(() => ({ text: ['Specialist here.'] })) });
    const triage = new Agent({ name: 'Triage', model: new FakeModel(() => ({ calls: [{ name: 'transfer_to_Specialist', arguments: {} }] })), handoffs: [specialist] });
    const { client } = await start(triage);
    const events = await streamed(client, userMessage('help'));
    expect(workingData(events)).toContainEqual({ type: 'handoff', from: 'Triage', to: 'Specialist' });
    expect(lastStatus(events)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Specialist here.' }] } });
  });

  it('ends the turn as input-required on a tool needing approval; another service on the same store resumes it on approve', async () => {
    const booked: string[] = [];
    const book = tool({
      name: 'book',
      description: 'Books a seat',
      parameters: z.object({ seat: z.string() }),
      needsApproval: true,
      execute: async ({ seat }) => (booked.push(seat), `booked ${seat}`),
    });
    const agentOf = () => new Agent({ name: 'Booker', model: new FakeModel(toolThenAnswer('book', { seat: '2C' }, 'Seat 2C is yours.')), tools: [book] });
    const store = createMemoryTaskStore();
    const first = await start(agentOf(), {}, store);
    const paused = await streamed(first.client, userMessage('Book 2C'));
    const status = lastStatus(paused);
    expect(status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(status.message?.parts).toEqual([
      { text: 'Approve this tool call? Answer "approve" or "reject".\n- book {"seat":"2C"}' },
      { data: { type: 'tool-approval-request', callId: 'call-1', toolName: 'book', arguments: '{"seat":"2C"}' }, mediaType: 'application/json' },
    ]);
    expect(booked).toEqual([]);
    const taskId = (await first.client.listTasks({})).tasks[0]!.id;
    await first.close();
    servers.splice(0);
    // A second service (a fresh agent and model, the same store) continues the run from the stored RunState.
    const second = await start(agentOf(), {}, store);
    const answered = await streamed(second.client, userMessage('approve', { taskId }));
    expect(booked).toEqual(['2C']);
    expect(lastStatus(answered)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Seat 2C is yours.' }] } });
  });

  it('rejects the call on any other answer: the tool does not run and the model reads why', async () => {
    const booked: string[] = [];
    const book = tool({ name: 'book', description: 'Books', parameters: z.object({ seat: z.string() }), needsApproval: true, execute: async ({ seat }) => (booked.push(seat), 'ok') });
    const model = new FakeModel(toolThenAnswer('book', { seat: '2C' }, 'Not booked.'));
    const { client } = await start(new Agent({ name: 'Booker', model, tools: [book] }));
    await streamed(client, userMessage('Book 2C'));
    const taskId = (await client.listTasks({})).tasks[0]!.id;
    const events = await streamed(client, userMessage('no, a window seat', { taskId }));
    expect(booked).toEqual([]);
    expect(JSON.stringify(model.requests[1]!.input)).toContain('The user rejected this call: no, a window seat');
    expect(lastStatus(events).state).toBe('TASK_STATE_COMPLETED');
  });

  it('cancel aborts the run: the model, waiting with nothing streamed, sees the signal abort', async () => {
    const probe = abortProbe();
    const model = new FakeModel(() => ({ text: ['too late'], hold: (signal) => probe.hold(signal) }));
    const { client } = await start(new Agent({ name: 'Waiter', model }));
    const events = await cancelWhenStarted(client, userMessage('wait'), probe.started);
    expect(lastStatus(events).state).toBe('TASK_STATE_CANCELED');
    expect(await probe.sawAbort).toBe(true);
  });

  it('cancel mid-stream: the model stops and the task ends canceled', async () => {
    const deltas = Array.from({ length: 400 }, (_, i) => `${i} `);
    const model = new FakeModel(() => ({ text: deltas, delayMs: 5 }));
    const { client, service } = await start(new Agent({ name: 'Counter', model }));
    const events = await streamAndCancel(client, userMessage('count'));
    expect(lastStatus(events).state).toBe('TASK_STATE_CANCELED');
    await service.idle();
    expect(model.requests[0]!.signal?.aborted).toBe(true);
    expect((await client.listTasks({})).tasks[0]!.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('fails the task with the error text when the model throws', async () => {
    const model = new FakeModel(() => ({ error: 'rate limit reached' }));
    const { client } = await start(new Agent({ name: 'Broken', model }));
    const status = lastStatus(await streamed(client, userMessage('hi')));
    expect(status.state).toBe('TASK_STATE_FAILED');
    expect(status.message?.parts?.[0]).toMatchObject({ text: expect.stringContaining('rate limit reached') });
  });
});
