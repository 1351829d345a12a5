// Our client drives the official @a2a-js/sdk server through a multi-turn
// conversation, over JSON-RPC, HTTP+JSON and gRPC.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AClient } from '../src/client.js';
import { createClient } from '../src/create-client.js';
import { activatedExtensions } from '../src/activated-extensions.js';
import type { Peer } from './a2a-js-peer.js';
import { PEER_EXTENSION, startPeer } from './a2a-js-peer.js';
import { NODE_TRANSPORTS } from './serve-reference.js';

let peer: Peer;
const clients: A2AClient[] = [];
beforeAll(async () => {
  peer = await startPeer();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await peer.close();
});

async function connect(binding: string): Promise<A2AClient> {
  const client = await createClient(peer.url, { preferred: [binding], transports: NODE_TRANSPORTS });
  clients.push(client);
  return client;
}

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'])('the @a2a-js/sdk server over %s', (binding) => {
  it('holds a multi-turn conversation: continue on input-required, a new task referencing the finished one', async () => {
    const client = await connect(binding);
    expect(client.interface?.protocolBinding).toBe(binding);
    const convo = client.conversation();
    const ask = await convo.send('a sunset quote please');
    expect(ask.text).toBe('Which platform?');
    expect(ask.task!.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const first = convo.taskId!;

    const quote = await convo.send('instagram');
    expect(quote.task!.id).toBe(first);
    expect(quote.task!.status.state).toBe('TASK_STATE_COMPLETED');
    expect(quote.text).toBe('Here is your instagram quote.');
    expect(quote.task!.contextId).toBe(ask.task!.contextId);

    const shorter = await convo.send('make it shorter');
    expect(shorter.task!.id).not.toBe(first);
    expect(shorter.text).toBe(`Shortened ${first}.`);
    expect(shorter.task!.artifacts![0]!.parts).toEqual([expect.objectContaining({ text: 'A instagram quote' })]);
    expect(shorter.task!.contextId).toBe(ask.task!.contextId);

    const got = await client.getTask({ id: first });
    expect(got.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('streams a multi-turn conversation and keeps the view', async () => {
    const convo = (await connect(binding)).conversation();
    for await (const _ of convo.stream('quote, streamed')) void _;
    expect(convo.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const first = convo.taskId;
    for await (const _ of convo.stream('pinterest')) void _;
    expect(convo.taskId).toBe(first);
    expect(convo.state).toBe('TASK_STATE_COMPLETED');
    const agentSaid = convo.view.messages.filter((m) => m.role === 'ROLE_AGENT').map((m) => m.parts);
    expect(agentSaid).toEqual([[expect.objectContaining({ text: 'Which platform?' })], [expect.objectContaining({ text: 'Here is your pinterest quote.' })]]);
    expect(convo.view.artifacts.map((a) => a.artifact.name)).toEqual(['quote']);
  });
});

describe.each(['JSONRPC', 'HTTP+JSON'])('extensions with the @a2a-js/sdk server over %s', (binding) => {
  it('the peer sees what our client asks for, and its activation (addActivatedExtension) reaches activatedExtensions', async () => {
    const client = await connect(binding);
    const message = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hello' }] } });
    const asked = await client.sendMessage(message(), { extensions: [PEER_EXTENSION, 'https://example.com/ext/unknown/v1'] });
    expect(activatedExtensions(asked)).toEqual([PEER_EXTENSION]);
    const plain = await client.sendMessage(message(), { extensions: ['https://example.com/ext/unknown/v1'] });
    expect(activatedExtensions(plain)).toEqual([]);
  });
});
