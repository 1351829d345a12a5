import { Agent, run } from '@openai/agents';
import type { A2AToolOutput } from '@taskwire/client';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { serveAll } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aTool } from './a2a-tool.js';
import { FakeModel } from './fake-model.js';

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
  it('calls the reference agent, returns its input-required with the taskId, and the answer on that task completes it', async () => {
    const card = await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json();
    const remote = a2aTool({ url: agent.baseUrl, card });
    expect(remote.name).toBe(card.name.replace(/[^A-Za-z0-9_-]+/g, '_'));
    const model = new FakeModel((request) => {
      const results = toolResults(request.input);
      const last = results.at(-1);
      if (!last) return { calls: [{ name: remote.name, arguments: { message: 'a quote please', taskId: null } }] };
      if (last.state === 'input-required') return { calls: [{ name: remote.name, arguments: { message: 'insta', taskId: last.taskId } }] };
      return { text: [`The quote: ${last.text}`] };
    });
    const result = await run(new Agent({ name: 'Caller', model, tools: [remote] }), 'Find me a quote');
    const [asked, answered] = toolResults(model.requests.at(-1)!.input);
    expect(asked).toMatchObject({ state: 'input-required', message: 'Do you want Instagram, Pinterest, or General?' });
    expect(answered).toMatchObject({ state: 'completed', taskId: asked!.taskId, artifacts: [{ name: 'quote' }] });
    expect(result.finalOutput).toBe(`The quote: ${answered!.text}`);
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
