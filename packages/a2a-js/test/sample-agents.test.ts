import type { Message as JsMessage, StreamResponse as JsStreamResponse, Task as JsTask } from '@a2a-js/sdk';
import { SendMessageRequest, TaskState } from '@a2a-js/sdk';
import type { StreamEvent } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SampleAgentExecutor } from './fixtures/sample-agents.js';
import type { Served, TaskwireServed } from './servers.js';
import { card, serveOnA2AJs, serveOnTaskwire } from './servers.js';

const textsOf = (parts: readonly { content?: { $case: string; value?: unknown } | undefined }[] | undefined) =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : `<${p.content?.$case}>`));

/** What a client sees of a send's answer, without ids and timestamps. */
function summary(result: JsMessage | JsTask) {
  if (!('status' in result)) return { message: textsOf(result.parts) };
  return {
    state: TaskState[result.status!.state],
    status: textsOf(result.status?.message?.parts),
    artifacts: result.artifacts.map((a) => ({ name: a.name, description: a.description, texts: textsOf(a.parts) })),
    history: result.history.map((m) => textsOf(m.parts)),
  };
}

/** What a stream's client sees, event by event, without ids and timestamps. */
function streamSummary(events: JsStreamResponse[]) {
  return events.map((e) => {
    const p = e.payload!;
    if (p.$case === 'task') return `task ${TaskState[p.value.status!.state]}`;
    if (p.$case === 'statusUpdate') return `status ${TaskState[p.value.status!.state]} ${textsOf(p.value.status?.message?.parts).join('')}`.trim();
    if (p.$case === 'artifactUpdate') return `artifact ${p.value.artifact!.name} ${textsOf(p.value.artifact!.parts).join('')}`;
    return `message ${textsOf(p.value.parts).join('')}`;
  });
}

const request = (text: string) => SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe("a2a-js's sample agent, unchanged, on a2a-js and on Taskwire", () => {
  let onA2AJs: Served;
  let onTaskwire: TaskwireServed;
  beforeAll(async () => {
    onA2AJs = await serveOnA2AJs(new SampleAgentExecutor(100), card('Sample Agent'));
    onTaskwire = await serveOnTaskwire(new SampleAgentExecutor(100), card('Sample Agent'));
  });
  afterAll(async () => {
    await onA2AJs?.close();
    await onTaskwire?.close();
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('answers a blocking send the same, to the a2a-js client over %s', async (binding) => {
    const [theirs, ours] = await Promise.all([
      (await onA2AJs.jsClient(binding)).sendMessage(request('hello there')),
      (await onTaskwire.jsClient(binding)).sendMessage(request('hello there')),
    ]);
    expect(summary(ours)).toEqual(summary(theirs));
    expect(summary(ours)).toMatchObject({ state: 'TASK_STATE_COMPLETED', artifacts: [{ name: 'Result', texts: ['Hello World! Nice to meet you!'] }] });
  });

  it('streams the same events to the a2a-js client', async () => {
    const [theirs, ours] = await Promise.all([
      collect((await onA2AJs.jsClient('JSONRPC')).sendMessageStream(request('how are you?'))),
      collect((await onTaskwire.jsClient('JSONRPC')).sendMessageStream(request('how are you?'))),
    ]);
    expect(streamSummary(ours)).toEqual(streamSummary(theirs));
    expect(streamSummary(ours).at(-1)).toBe('status TASK_STATE_COMPLETED');
  });

  it.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)("answers Taskwire's client over %s", async (binding) => {
    const client = await onTaskwire.client(binding);
    const result = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'goodbye' }] } });
    expect('task' in result && result.task).toMatchObject({
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ name: 'Result', description: 'The final result from the agent.', parts: [{ text: 'Goodbye! Have a wonderful day!', mediaType: 'text/plain' }] }],
    });
    const events: StreamEvent[] = await collect(client.sendStreamingMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'anything' }] } }));
    const kinds = events.map((e) => Object.keys(e.response)[0]);
    expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(events.at(-1)!.response).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});
