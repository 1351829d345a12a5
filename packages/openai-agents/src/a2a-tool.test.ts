import { Agent, run, RunState } from '@openai/agents';
import type { A2AToolOutput } from '@taskwire/client';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelThroughTool, lastStatus, serve, streamed, userMessage, waitingRemote } from '@taskwire/reference-agent/adapter-test-kit';
import { a2aTool } from './a2a-tool.js';
import { FakeModel } from './fake-model.js';
import { openaiAgent } from './openai-agent.js';
import { remoteQuestionOf } from './remote-model.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 0 });
});
afterAll(() => agent.close(0));

/** The outputs of the calls of the tool the model has seen, oldest first. */
function toolResults(input: unknown): A2AToolOutput[] {
  const items = (Array.isArray(input) ? input : []) as { type?: string; output?: unknown }[];
  return items
    .filter((i) => i.type === 'function_call_result')
    .map((i) => {
      const output = i.output as string | { type: string; text: string };
      return JSON.parse(typeof output === 'string' ? output : output.text) as A2AToolOutput;
    });
}

describe('a2aTool (Agents SDK)', () => {
  /** A calling agent that asks the reference agent for a quote and then says it. */
  const caller = (remote: ReturnType<typeof a2aTool>) => {
    const model = new FakeModel((request) => {
      const last = toolResults(request.input).at(-1);
      return last ? { text: [`The quote: ${last.text}`] } : { calls: [{ name: remote.name, arguments: { message: 'a quote please', taskId: null } }] };
    });
    return { model, agent: new Agent({ name: 'Caller', model, tools: [remote] }) };
  };

  it("pauses the calling run on the remote input-required; the answer, from the stored RunState, goes to that remote task", async () => {
    const card = await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json();
    const remote = a2aTool({ url: agent.baseUrl, card });
    expect(remote.name).toBe(card.name.replace(/[^A-Za-z0-9_-]+/g, '_'));
    const { model, agent: calling } = caller(remote);
    const paused = await run(calling, 'Find me a quote');
    const [asked] = paused.interruptions;
    const question = remoteQuestionOf(asked?.arguments);
    expect(question).toMatchObject({ agent: remote.name, question: 'Do you want Instagram, Pinterest, or General?' });
    const state = await RunState.fromString(calling, paused.state.toString());
    state.reject(state.getInterruptions()[0]!, { message: 'insta' });
    const result = await run(calling, state);
    const [answered] = toolResults(model.requests.at(-1)!.input);
    expect(answered).toMatchObject({ state: 'completed', taskId: question!.taskId, artifacts: [{ name: 'quote' }] });
    expect(result.finalOutput).toBe(`The quote: ${answered!.text}`);
  });

  it('served with openaiAgent: the remote question is the task\'s input-required, and the next message answers it', async () => {
    const { agent: calling } = caller(a2aTool({ url: agent.baseUrl, name: 'quotes' }));
    const { client, close } = await serve(openaiAgent(calling));
    try {
      const paused = lastStatus(await streamed(client, userMessage('Find me a quote')));
      expect(paused).toMatchObject({ state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Do you want Instagram, Pinterest, or General?' }, {}] } });
      const taskId = (await client.listTasks({})).tasks[0]!.id;
      const done = lastStatus(await streamed(client, userMessage('pinterest', { taskId })));
      expect(done).toMatchObject({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: expect.stringMatching(/^The quote: .+/) }] } });
    } finally {
      await close();
    }
  });

  it("a cancel of the caller's task cancels the remote task", async () => {
    const remote = await waitingRemote();
    const model = new FakeModel(() => ({ calls: [{ name: 'remote', arguments: { message: 'wait', taskId: null } }] }));
    const caller = await serve(openaiAgent(new Agent({ name: 'Caller', model, tools: [a2aTool({ client: remote.client, name: 'remote' })] })));
    expect(await cancelThroughTool(caller, remote)).toEqual({ caller: 'TASK_STATE_CANCELED', sawAbort: true, remote: 'TASK_STATE_CANCELED' });
  });

  it('hands a failed remote task to the model as its result', async () => {
    const remote = a2aTool({ url: agent.baseUrl, name: 'remote' });
    const model = new FakeModel((request) => {
      const last = toolResults(request.input).at(-1);
      return last ? { text: [`${last.state}: ${last.message}`] } : { calls: [{ name: 'remote', arguments: { message: 'fail', taskId: null } }] };
    });
    const result = await run(new Agent({ name: 'Caller', model, tools: [remote] }), 'Try it');
    expect(result.finalOutput).toMatch(/^failed: /);
  });
});
