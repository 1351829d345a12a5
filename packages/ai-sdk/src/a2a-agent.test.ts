import type { A2AClient } from '@taskwire/client';
import type { Part, StreamResponse, Task, TaskArtifactUpdateEvent } from '@taskwire/core';
import { createMemoryTaskStore } from '@taskwire/core';
import { tool, ToolLoopAgent } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { a2aAgent } from './a2a-agent.js';
import { contextTasks } from './context-tasks.js';
import type { A2AAgentOptions, AiSdkSource } from './a2a-agent.js';
import { META_KEY } from './shapes.js';
import type { Served } from './test-kit.js';
import { finish, reasoning, scriptedModel, serve, testCard, text, toolCall, userMessage } from './test-kit.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(source: AiSdkSource, options?: A2AAgentOptions): Promise<A2AClient> {
  served = await serve(a2aAgent(source, options), testCard('ai'));
  return served.client('JSONRPC');
}

async function streamed(client: A2AClient, message = userMessage('hi')): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of client.stream('SendStreamingMessage', { message })) out.push(event.response);
  return out;
}

const artifactEvents = (events: StreamResponse[]) =>
  events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : [])) as TaskArtifactUpdateEvent[];
const statusData = (events: StreamResponse[]) =>
  events.flatMap((e) => ('statusUpdate' in e ? (e.statusUpdate.status.message?.parts ?? []) : [])).flatMap((p: Part) => ('data' in p ? [p.data] : []));
const lastStatus = (events: StreamResponse[]) => {
  const last = events.at(-1)!;
  if (!('statusUpdate' in last)) throw new Error(`the stream ended with ${JSON.stringify(last)}`);
  return last.statusUpdate.status;
};

describe('a2aAgent: an AI SDK agent served over A2A (JSON-RPC)', () => {
  it('streams text deltas as chunks of one artifact, then completes with the final text and the token usage', async () => {
    const model = scriptedModel(() => [...text('Hello', ', ', 'world!'), finish()]);
    const client = await start({ model });
    const events = await streamed(client);
    const chunks = artifactEvents(events);
    // Coalesced: the first delta at once, the rest merged as they come while a commit is under way.
    expect(chunks[0]!.artifact.parts).toEqual([{ text: 'Hello' }]);
    expect(chunks.flatMap((c) => c.artifact.parts.map((p) => ('text' in p ? p.text : ''))).join('')).toBe('Hello, world!');
    expect(chunks.map((c) => [Boolean(c.append), Boolean(c.lastChunk)])).toEqual(chunks.map((_, i) => [i > 0, i === chunks.length - 1]));
    expect(new Set(chunks.map((c) => c.artifact.artifactId)).size).toBe(1);
    const status = lastStatus(events);
    expect(status.state).toBe('TASK_STATE_COMPLETED');
    expect(status.message?.parts).toEqual([{ text: 'Hello, world!' }]);
    const task = await client.getTask({ id: chunks[0]!.taskId });
    expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe('Hello, world!');
    expect((task.status.message?.metadata?.[META_KEY] as { usage: unknown }).usage).toEqual({ inputTokens: 11, outputTokens: 7, totalTokens: 18 });
  });

  it('with coalesceText: false, sends one chunk per delta, each when the next arrives', async () => {
    const model = scriptedModel(() => [...text('Hello', ', ', 'world!'), finish()]);
    const client = await start({ model }, { coalesceText: false });
    const chunks = artifactEvents(await streamed(client));
    expect(chunks.map((c) => c.artifact.parts)).toEqual([[{ text: 'Hello' }], [{ text: ', ' }], [{ text: 'world!' }]]);
    expect(chunks.map((c) => [Boolean(c.append), Boolean(c.lastChunk)])).toEqual([[false, false], [true, false], [true, true]]);
  });

  it('sends reasoning, tool calls and tool results as status updates with data parts, not as artifact text', async () => {
    const model = scriptedModel((_prompt, call) =>
      call === 0 ? [...reasoning('It needs the weather.'), toolCall('weather', { city: 'Oslo' }), finish('tool-calls')] : [...text('It is 21 degrees.'), finish()],
    );
    const weather = tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 21 }) });
    const client = await start(new ToolLoopAgent({ model, tools: { weather } }));
    const events = await streamed(client);
    expect(statusData(events)).toEqual([
      { type: 'reasoning', text: 'It needs the weather.' },
      { type: 'tool-call', toolCallId: 'call-weather', toolName: 'weather', input: { city: 'Oslo' } },
      { type: 'tool-result', toolCallId: 'call-weather', toolName: 'weather', output: { city: 'Oslo', celsius: 21 } },
    ]);
    expect(artifactEvents(events).map((c) => (c.artifact.parts[0] as { text: string }).text).join('')).toBe('It is 21 degrees.');
    expect(lastStatus(events).state).toBe('TASK_STATE_COMPLETED');
  });

  it('gives the model file parts for raw and url parts, and JSON text for data parts', async () => {
    const model = scriptedModel(() => [...text('seen'), finish()]);
    const client = await start({ model });
    const parts: Part[] = [
      { text: 'look' },
      { raw: 'iVBORw0KGgo=', mediaType: 'image/png', filename: 'dot.png' },
      { url: 'https://example.com/doc.pdf', mediaType: 'application/pdf' },
      { data: { order: 42 } },
    ];
    await client.sendMessage({ message: userMessage(parts) });
    const content = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'user')!.content;
    expect(content).toMatchObject([
      { type: 'text', text: 'look' },
      { type: 'file', mediaType: 'image/png', filename: 'dot.png' },
      { type: 'file', mediaType: 'application/pdf' },
      { type: 'text', text: '{"order":42}' },
    ]);
  });

  it('answers a short, tool-free turn with a bare Message when opted in, and streams a task past maxChars', async () => {
    const model = scriptedModel((prompt) => [...text(JSON.stringify(prompt).includes('long') ? 'a rather long answer' : 'Hi!'), finish()]);
    const client = await start({ model }, { replyWithMessage: { maxChars: 10 } });
    const short = await client.sendMessage({ message: userMessage('short') });
    expect('message' in short && short.message.parts).toEqual([{ text: 'Hi!' }]);
    const long = await client.sendMessage({ message: userMessage('long') });
    expect('task' in long && long.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect('task' in long && long.task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe('a rather long answer');
  });

  it('gives the model the referenced earlier tasks first, their turns included', async () => {
    const model = scriptedModel((_prompt, call) => [...text(call === 0 ? 'The capital is Oslo.' : 'About 700,000.'), finish()]);
    const client = await start({ model });
    const first = await client.sendMessage({ message: userMessage('Capital of Norway?') });
    const firstTask = (first as { task: Task }).task;
    await client.sendMessage({ message: userMessage('How many people live there?', { contextId: firstTask.contextId, referenceTaskIds: [firstTask.id] }) });
    const prompt = model.doStreamCalls[1]!.prompt.map((m) => [m.role, JSON.stringify(m.content)]);
    expect(prompt).toEqual([
      ['user', JSON.stringify([{ type: 'text', text: 'Capital of Norway?' }])],
      ['assistant', JSON.stringify([{ type: 'text', text: 'The capital is Oslo.' }])],
      ['user', JSON.stringify([{ type: 'text', text: 'How many people live there?' }])],
    ]);
  });

  it('with contextTasks(store), gives the model every earlier task of the contextId', async () => {
    const model = scriptedModel((_prompt, call) => [...text(`answer ${call}`), finish()]);
    const store = createMemoryTaskStore();
    served = await serve(a2aAgent({ model }, { earlierTasks: contextTasks(store) }), testCard('ai'), { store });
    const client = await served.client('JSONRPC');
    const first = (await client.sendMessage({ message: userMessage('one') })) as { task: Task };
    await client.sendMessage({ message: userMessage('two', { contextId: first.task.contextId }) });
    await client.sendMessage({ message: userMessage('three', { contextId: first.task.contextId }) });
    await client.sendMessage({ message: userMessage('elsewhere') });
    const prompt = model.doStreamCalls[2]!.prompt.map((m) => (m.content as { text: string }[]).map((p) => p.text).join(''));
    expect(prompt).toEqual(['one', 'answer 0', 'two', 'answer 1', 'three']);
    expect(model.doStreamCalls[3]!.prompt).toHaveLength(1);
  });

  it('fails the task with a readable message when the model errors', async () => {
    const model = scriptedModel(() => [{ type: 'error', error: new Error('rate limit reached') }, finish()]);
    const client = await start({ model, maxRetries: 0 });
    const events = await streamed(client);
    const status = lastStatus(events);
    expect(status.state).toBe('TASK_STATE_FAILED');
    expect(status.message?.parts).toEqual([{ text: 'The model failed: rate limit reached' }]);
  });

  it('fails the task, naming the tool, when a tool throws', async () => {
    const model = scriptedModel((_prompt, call) => (call === 0 ? [toolCall('book', { seat: '1A' }), finish('tool-calls')] : [...text('never'), finish()]));
    const book = tool({
      inputSchema: z.object({ seat: z.string() }),
      execute: async ({ seat }): Promise<string> => {
        throw new Error(`the seat ${seat} is taken`);
      },
    });
    const client = await start(new ToolLoopAgent({ model, tools: { book } }));
    const status = lastStatus(await streamed(client));
    expect(status.state).toBe('TASK_STATE_FAILED');
    expect(status.message?.parts).toEqual([{ text: 'The tool "book" failed: the seat 1A is taken' }]);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it('cancel aborts the model call (the signal reaches the provider) and the task ends canceled', async () => {
    const deltas = Array.from({ length: 400 }, (_, i) => `${i} `);
    const model = scriptedModel(() => [...text(...deltas), finish()], 10);
    const client = await start({ model });
    const events: StreamResponse[] = [];
    for await (const event of client.stream('SendStreamingMessage', { message: userMessage('count') })) {
      events.push(event.response);
      if ('artifactUpdate' in event.response && events.length === 2) await client.cancelTask({ id: event.response.artifactUpdate.taskId });
    }
    expect(lastStatus(events).state).toBe('TASK_STATE_CANCELED');
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    const taskId = artifactEvents(events)[0]!.taskId;
    await served!.service.idle();
    const task = await client.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    expect(task.artifacts?.[0]?.parts.length).toBeLessThan(deltas.length);
  });
});
