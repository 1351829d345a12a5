import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { FakeListChatModel, FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { Task } from '@taskwire/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { LangGraphAgentOptions, StreamingGraph } from './graph-agent.js';
import { langGraphAgent } from './graph-agent.js';
import type { Served } from '@taskwire/reference-agent/adapter-test-kit';
import { abortProbe, artifactText, cancelWhenStarted, lastStatus, serve, streamAndCancel, streamed, userMessage, workingData } from '@taskwire/reference-agent/adapter-test-kit';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function start(graph: StreamingGraph, options?: LangGraphAgentOptions): Promise<Served> {
  served = await serve(langGraphAgent(graph, options));
  return served;
}

/** A graph of one model node on the messages state. */
function chatGraph(model: BaseChatModel) {
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer: new MemorySaver() });
}

describe('langGraphAgent', () => {
  it('streams the model message as coalesced chunks of one artifact and completes with its text', async () => {
    // The fake model streams one delta per character: coalesced, far fewer chunks (one per delta without coalescing).
    const answer = `Hello, world!${' la'.repeat(62)}`;
    const { client } = await start(chatGraph(new FakeListChatModel({ responses: [answer] })));
    const events = await streamed(client, userMessage('hi'));
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThan(answer.length / 2);
    expect(chunks.map((c) => [Boolean(c.append), Boolean(c.lastChunk)])).toEqual(chunks.map((_, i) => [i > 0, i === chunks.length - 1]));
    expect(artifactText(events)).toBe(answer);
    expect(workingData(events)).toEqual([{ type: 'node-update', node: 'agent', keys: ['messages'] }]);
    const status = lastStatus(events);
    expect(status.state).toBe('TASK_STATE_COMPLETED');
    expect(status.message?.parts).toEqual([{ text: answer }]);
  });

  it("completes with the node's whole message when its last tokens missed the messages stream", async () => {
    // What LangGraph yields for a model that does not await its token callbacks (FakeListChatModel without `sleep`).
    const ai = (content: string) => ({ type: 'ai', id: 'm1', content });
    const graph: StreamingGraph = { stream: async () => [['messages', [ai('Sunny, ')]], ['updates', { agent: { messages: [ai('Sunny, 21 °C.')] } }]] as never };
    const events = await streamed((await start(graph)).client, userMessage('hi'));
    expect(artifactText(events)).toBe('Sunny, 21 °C.');
    expect(lastStatus(events)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Sunny, 21 °C.' }] } });
  });

  it('with coalesceText: false, sends one chunk per delta', async () => {
    const { client } = await start(chatGraph(new FakeListChatModel({ responses: ['abc'] })), { coalesceText: false });
    const events = await streamed(client, userMessage('hi'));
    expect(events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate.artifact.parts] : []))).toEqual([[{ text: 'a' }], [{ text: 'b' }], [{ text: 'c' }]]);
  });

  it('keeps the conversation of a contextId in the checkpointer: the contextId is the thread_id', async () => {
    const seen: number[] = [];
    const model = new FakeListChatModel({ responses: ['one', 'two'] });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => {
        seen.push(state.messages.length);
        return { messages: [await model.invoke(state.messages)] };
      })
      .addEdge(START, 'agent')
      .compile({ checkpointer: new MemorySaver() });
    const { client } = await start(graph);
    const first = (await client.sendMessage({ message: userMessage('a') })) as { task: Task };
    await client.sendMessage({ message: userMessage('b', { contextId: first.task.contextId }) });
    await client.sendMessage({ message: userMessage('c') });
    expect(seen).toEqual([1, 3, 1]);
  });

  it('runs a tool node: the model calls the tool, the updates name the nodes, the answer uses its result', async () => {
    const weather = tool(async ({ city }) => JSON.stringify({ city, celsius: 21 }), {
      name: 'weather',
      description: 'The weather in a city',
      schema: z.object({ city: z.string() }),
    });
    const caller = new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id: 'call-1', name: 'weather', args: { city: 'Oslo' }, type: 'tool_call' }] })] });
    const answerer = new FakeListChatModel({ responses: ['It is 21 degrees in Oslo.'] });
    let toolResult = '';
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => {
        const last = state.messages.at(-1)!;
        if (ToolMessage.isInstance(last)) toolResult = String(last.content);
        return { messages: [await (ToolMessage.isInstance(last) ? answerer : caller).invoke(state.messages)] };
      })
      .addNode('tools', new ToolNode([weather]))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
      .addEdge('tools', 'agent')
      .compile({ checkpointer: new MemorySaver() });
    const { client } = await start(graph);
    const events = await streamed(client, userMessage('Weather in Oslo?'));
    expect(toolResult).toBe('{"city":"Oslo","celsius":21}');
    expect(workingData(events).map((d) => (d as { node: string }).node)).toEqual(['agent', 'tools', 'agent']);
    expect(artifactText(events)).toBe('It is 21 degrees in Oslo.');
    expect(lastStatus(events)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'It is 21 degrees in Oslo.' }] } });
  });

  it('ends the turn as input-required on interrupt(value) and resumes with the next message on the task', async () => {
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('ask', async () => {
        const city = interrupt('Which city?');
        const seat = interrupt({ question: 'Which seat?', options: ['1A', '2C'] });
        return { messages: [new AIMessage(`Booked ${String(city)}, seat ${(seat as { seat: string }).seat}.`)] };
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer: new MemorySaver() });
    const { client } = await start(graph);
    const first = lastStatus(await streamed(client, userMessage('Book me a flight')));
    expect(first.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.message?.parts).toEqual([{ text: 'Which city?' }]);
    const taskId = (await client.listTasks({})).tasks[0]!.id;
    const second = lastStatus(await streamed(client, userMessage('Oslo', { taskId })));
    expect(second.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(second.message?.parts).toMatchObject([{ data: { type: 'interrupt', value: { question: 'Which seat?', options: ['1A', '2C'] } } }]);
    const third = await streamed(client, userMessage([{ data: { seat: '2C' } }], { taskId }));
    expect(lastStatus(third)).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Booked Oslo, seat 2C.' }] } });
  });

  it('cancel aborts the run: a node, waiting with nothing streamed, sees the signal abort', async () => {
    const probe = abortProbe();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('wait', async (_state, config) => (await probe.hold(config.signal), { messages: [new AIMessage('too late')] }))
      .addEdge(START, 'wait')
      .compile({ checkpointer: new MemorySaver() });
    const { client } = await start(graph);
    const events = await cancelWhenStarted(client, userMessage('wait'), probe.started);
    expect(lastStatus(events).state).toBe('TASK_STATE_CANCELED');
    expect(await probe.sawAbort).toBe(true);
  });

  it('cancel mid-stream: the model stops streaming and the task ends canceled', async () => {
    const long = 'x'.repeat(2000);
    const model = new FakeListChatModel({ responses: [long], sleep: 5 });
    let modelError: unknown;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages).catch((error: unknown) => Promise.reject((modelError = error)))] }))
      .addEdge(START, 'agent')
      .compile({ checkpointer: new MemorySaver() });
    const { client, service } = await start(graph);
    const events = await streamAndCancel(client, userMessage('count'));
    expect(lastStatus(events).state).toBe('TASK_STATE_CANCELED');
    await service.idle();
    const task = (await client.listTasks({})).tasks[0]!;
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    expect(String(modelError)).toMatch(/abort/i);
    expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('').length ?? 0).toBeLessThan(long.length);
  });

  it('fails the task with the error text when a node throws', async () => {
    const { client } = await start(chatGraph(new FakeStreamingChatModel({ thrownErrorString: 'rate limit reached' })));
    const status = lastStatus(await streamed(client, userMessage('hi')));
    expect(status.state).toBe('TASK_STATE_FAILED');
    expect(status.message?.parts).toEqual([{ text: 'The graph failed: rate limit reached' }]);
  });
});
