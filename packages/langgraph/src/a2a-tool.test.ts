import { AIMessage, AIMessageChunk, ToolMessage } from '@langchain/core/messages';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { A2AToolOutput } from '@taskwire/client';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelThroughTool, serve, waitingRemote } from '@taskwire/reference-agent/adapter-test-kit';
import { a2aTool } from './a2a-tool.js';
import { langGraphAgent } from './graph-agent.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
});
afterAll(() => agent.close(0));

/** A model turn that calls the tool `name` with `args`. */
const callTool = (name: string, args: Record<string, unknown>, id: string) =>
  new FakeStreamingChatModel({ chunks: [new AIMessageChunk({ content: '', tool_calls: [{ id, name, args, type: 'tool_call' }] })] });

describe('a2aTool (LangGraph)', () => {
  it("is named and described from the card, and a graph's ToolNode runs it against the reference agent, answering its input-required on the same task", async () => {
    const card = await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json();
    const remote = a2aTool({ url: agent.baseUrl, card });
    expect(remote.name).toBe(card.name.replace(/[^A-Za-z0-9_-]+/g, '_'));
    expect(remote.description).toBe(`Ask the agent "${card.name}": ${card.description}`);
    const results: A2AToolOutput[] = [];
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => {
        const last = state.messages.at(-1)!;
        if (!ToolMessage.isInstance(last)) return { messages: [await callTool(remote.name, { message: 'a quote please' }, 'c1').invoke(state.messages)] };
        const result = JSON.parse(String(last.content)) as A2AToolOutput;
        results.push(result);
        if (result.state === 'input-required') return { messages: [await callTool(remote.name, { message: 'insta', taskId: result.taskId }, 'c2').invoke(state.messages)] };
        return { messages: [new AIMessage(`The quote: ${result.text}`)] };
      })
      .addNode('tools', new ToolNode([remote]))
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END))
      .addEdge('tools', 'agent')
      .compile();
    const final = await graph.invoke({ messages: [{ role: 'user', content: 'Find me a quote' }] });
    expect(results[0]).toMatchObject({ state: 'input-required', message: 'Do you want Instagram, Pinterest, or General?' });
    expect(results[0]!.question).toContain(results[0]!.taskId);
    expect(results[1]).toMatchObject({ state: 'completed', taskId: results[0]!.taskId, artifacts: [{ name: 'quote' }] });
    expect(results[1]!.text.length).toBeGreaterThan(0);
    expect(String(final.messages.at(-1)!.content)).toBe(`The quote: ${results[1]!.text}`);
  });

  it("a cancel of the caller's task (its graph's signal) cancels the remote task", async () => {
    const remote = await waitingRemote();
    const tool = a2aTool({ client: remote.client, name: 'remote' });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await callTool('remote', { message: 'wait' }, 'c1').invoke(state.messages)] }))
      .addNode('tools', new ToolNode([tool]))
      .addEdge(START, 'agent')
      .addEdge('agent', 'tools')
      .compile({ checkpointer: new MemorySaver() });
    const caller = await serve(langGraphAgent(graph));
    expect(await cancelThroughTool(caller, remote)).toEqual({ caller: 'TASK_STATE_CANCELED', sawAbort: true, remote: 'TASK_STATE_CANCELED' });
  });
});
