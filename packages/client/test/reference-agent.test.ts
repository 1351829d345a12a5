// The full client (createClient, conversations, waitForTask, resumed streams)
// against the reference agent served for real on every Taskwire transport.
import type { StreamEvent, TaskService } from '@taskwire/core';
import { apiKeyAuth } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransportRegistry } from '../src/agent-card.js';
import type { A2AClient } from '../src/client.js';
import { createClient } from '../src/create-client.js';
import { DEFAULT_TRANSPORTS } from '../src/default-transports.js';
import { faultyTransport, referenceService } from './support.js';
import { viewOf } from '../src/view/reduce.js';
import type { Served } from './serve-reference.js';
import { BINDINGS, NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

const ALL: TransportRegistry = { ...DEFAULT_TRANSPORTS, ...NODE_TRANSPORTS };
const output = (n: number) => Array.from({ length: n }, (_, i) => `chunk ${i + 1} of ${n}\n`).join('');
const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

let service: TaskService;
let served: Served;
const clients: A2AClient[] = [];
beforeAll(async () => {
  service = referenceService();
  served = await serveEverywhere(service);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await served.close();
  await service.close();
});

async function connect(binding: string, transports: TransportRegistry = ALL): Promise<A2AClient> {
  const client = await createClient(served.url, { preferred: [binding], transports, poll: { initialMs: 5, maxDelayMs: 20 } });
  clients.push(client);
  return client;
}

describe.each(BINDINGS)('the reference agent over %s', (binding) => {
  it('createClient reads the card and picks this binding', async () => {
    const client = await connect(binding);
    expect(client.interface?.protocolBinding).toBe(binding);
    expect(client.version).toBe('1.0');
  });

  it('runs the seed’s multi-turn conversation, the client choosing every task id', async () => {
    const convo = (await connect(binding)).conversation();
    expect((await convo.send('provide a sunset quote')).text).toBe('Do you want Instagram, Pinterest, or General?');
    const first = convo.taskId;
    const quote = await convo.send('insta');
    expect(quote.task!.id).toBe(first);
    expect(quote.task!.status.state).toBe('TASK_STATE_COMPLETED');
    const shorter = await convo.send('make it shorter');
    expect(shorter.task!.id).not.toBe(first);
    expect(shorter.task!.history![0]!.referenceTaskIds).toEqual([first]);
    expect(shorter.text).toBe('Here is a shorter version.');
    expect(convo.view.messages.filter((m) => m.role === 'ROLE_USER').map((m) => m.parts)).toEqual([
      [{ text: 'provide a sunset quote' }],
      [{ text: 'insta' }],
      [{ text: 'make it shorter' }],
    ]);
  });

  it('streams a turn with progress and joined artifact chunks', async () => {
    const convo = (await connect(binding)).conversation();
    let progressSeen = 0;
    for await (const _ of convo.stream('slow 5 2')) if (convo.view.progress) progressSeen = convo.view.progress.current;
    expect(progressSeen).toBe(5);
    expect(convo.state).toBe('TASK_STATE_COMPLETED');
    expect(convo.view.artifacts.map((a) => [a.artifact.name, a.artifact.parts, a.complete])).toEqual([['output', [{ text: output(5) }], true]]);
  });

  it('waitForTask polls a running task until it completes', async () => {
    const client = await connect(binding);
    const sent = await client.sendMessage({ ...message('slow 4 5'), configuration: { returnImmediately: true } });
    const id = 'task' in sent ? sent.task.id : '';
    const polls: string[] = [];
    const done = await client.waitForTask(id, { onPoll: (t) => polls.push(t.status.state) });
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')).toBe(output(4));
    expect(polls.at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('resumes a stream cut mid-way from the last event, over the real wire', async () => {
    const base = ALL[binding]!;
    const made: ReturnType<typeof faultyTransport>[] = [];
    const cutting: TransportRegistry = { [binding]: (t) => (made[made.length] = faultyTransport(base(t)!, { cutStreams: [4] })) };
    const client = await connect(binding, cutting);
    const events: StreamEvent[] = [];
    for await (const event of client.sendStreamingMessage(message('slow 6 2'))) events.push(event);
    const calls = made[0]!.calls.map((c) => [c.method, (c.params as { afterSequence?: number }).afterSequence]);
    expect(calls).toEqual([
      ['SendStreamingMessage', undefined],
      ['SubscribeToTask', events[3]!.sequence],
    ]);
    const sequences = events.map((e) => e.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    for (let i = 1; i < sequences.length; i++) expect(sequences[i]).toBe(sequences[i - 1]! + 1);
    const view = viewOf(events);
    expect(view.state).toBe('TASK_STATE_COMPLETED');
    expect(view.artifacts[0]!.artifact.parts).toEqual([{ text: output(6) }]);
  });
});

describe('tenants and credentials from the card and createClient', () => {
  it.each(BINDINGS)('%s: echoes the interface tenant and sends the API key', async (binding) => {
    const svc = referenceService();
    const secured = await serveEverywhere(svc, { tenant: 'acme', auth: { authenticate: apiKeyAuth({ 'k-1': 'alice' }) } });
    try {
      const client = await createClient(secured.url, { preferred: [binding], transports: ALL, trustedOrigins: [secured.grpcUrl], headers: { 'x-api-key': 'k-1' } });
      clients.push(client);
      expect(client.tenant).toBe('acme');
      await client.conversation().send('echo tenant');
      const [task] = (await client.listTasks()).tasks;
      expect(task!.status.message?.parts).toEqual([{ text: 'tenant' }]);
      // Another tenant does not see it.
      expect((await client.listTasks({ tenant: 'other' })).tasks).toEqual([]);
      const anonymous = await createClient(secured.url, { preferred: [binding], transports: ALL });
      clients.push(anonymous);
      await expect(anonymous.listTasks()).rejects.toMatchObject({ kind: 'Unauthenticated' });
    } finally {
      await secured.close();
      await svc.close();
    }
  });
});

describe('a v0.3 interface', () => {
  it('is spoken to in v0.3 (the v0.3 JSON-RPC transport), the conversation unchanged', async () => {
    const svc = referenceService();
    const old = await serveEverywhere(svc, {
      interfaces: (all) => all.filter((i) => i.protocolBinding === 'JSONRPC').map((i) => ({ ...i, protocolVersion: '0.3' })),
    });
    try {
      const client = await createClient(old.url);
      clients.push(client);
      expect([client.interface?.protocolBinding, client.version]).toEqual(['JSONRPC', '0.3']);
      const convo = client.conversation();
      expect((await convo.send('provide a sunset quote')).task!.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const quote = await convo.send('general');
      expect(quote.task!.status.state).toBe('TASK_STATE_COMPLETED');
      const events = [];
      for await (const event of convo.stream('make it shorter')) events.push(event);
      expect(convo.state).toBe('TASK_STATE_COMPLETED');
      expect(convo.view.artifacts.at(-1)!.artifact.name).toBe('quote');
    } finally {
      await old.close();
      await svc.close();
    }
  });
});

/** A fetch whose first event stream breaks (as a dropped connection does) after `events` SSE events. */
function fetchCuttingFirstStream(events: number): typeof fetch {
  let cut = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (cut || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response;
    cut = true;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        seen += decoder.decode(value, { stream: true }).split('\n\n').length - 1;
        if (seen >= events) {
          await reader.cancel();
          controller.error(new TypeError('terminated'));
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

describe.each(['JSONRPC', 'HTTP+JSON'])('an SSE connection dropped mid-stream over %s', (binding) => {
  it('is resumed with Last-Event-ID: no event lost or repeated', async () => {
    const seenIds: (string | null)[] = [];
    const cutting = fetchCuttingFirstStream(3);
    const spying: typeof fetch = (input, init) => {
      seenIds.push(new Headers(init?.headers).get('last-event-id'));
      return cutting(input, init);
    };
    const client = await createClient(served.url, { preferred: [binding], fetch: spying });
    clients.push(client);
    const events: StreamEvent[] = [];
    for await (const event of client.sendStreamingMessage(message('slow 6 2'))) events.push(event);
    const sequences = events.map((e) => e.sequence);
    for (let i = 1; i < sequences.length; i++) expect(sequences[i]).toBe(sequences[i - 1]! + 1);
    // One resumption, from an event the consumer had seen before the end.
    const resumedFrom = seenIds.filter((id) => id !== null).map(Number);
    expect(resumedFrom).toHaveLength(1);
    expect(sequences.slice(0, -1)).toContain(resumedFrom[0]);
    expect(viewOf(events).artifacts[0]!.artifact.parts).toEqual([{ text: output(6) }]);
  });
});
