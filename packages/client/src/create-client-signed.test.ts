import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryTaskStore, signAgentCard, TaskService, type AgentCard } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { createA2AHandler } from '@taskwire/server-http';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentCardError } from './agent-card.js';
import { createClient } from './create-client.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const keyPair = () => crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);

/** A real agent on 127.0.0.1 serving `sign(card)` (its card as signed once its URL is known). */
async function agentServing(sign: (card: AgentCard) => Promise<AgentCard>): Promise<string> {
  let node: ReturnType<typeof createA2AHandler>['node'] | undefined;
  const server: Server = createServer((req, res) => node!(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = await sign(referenceAgentCard([{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]));
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
  node = createA2AHandler({ service, card }).node;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await service.close();
  });
  return base;
}

async function refusal(connect: Promise<unknown>): Promise<AgentCardError> {
  const error = await connect.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof AgentCardError)) throw new Error(`expected an AgentCardError, got ${String(error)}`);
  return error;
}

describe('createClient with verifyCard', () => {
  it('talks to an agent whose card is signed by a trusted key, and refuses it for any other key', async () => {
    const trusted = await keyPair();
    const other = await keyPair();
    const url = await agentServing((card) => signAgentCard(card, { privateKey: trusted.privateKey, alg: 'ES256', kid: 'agent-key' }));

    const client = await createClient(url, { verifyCard: { keys: (header) => (header.kid === 'agent-key' ? trusted.publicKey : undefined) } });
    expect((await client.conversation().send('echo signed')).text).toBe('signed');
    await client.close();

    const wrong = await refusal(createClient(url, { verifyCard: { keys: () => other.publicKey } }));
    expect(wrong.message).toMatch(/is not signed by a key you trust \(signatures\[0\] \(kid "agent-key"\): /);
    const unknown = await refusal(createClient(url, { verifyCard: { keys: () => undefined } }));
    expect(unknown.message).toContain('signatures[0] (kid "agent-key")');
  });

  it('refuses a card changed on the way, and an unsigned card', async () => {
    const { privateKey, publicKey } = await keyPair();
    const url = await agentServing((card) => signAgentCard(card, { privateKey, alg: 'ES256', kid: 'k' }));
    // A proxy that rewrites the card's interface URL (to send calls elsewhere).
    const tampering: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const card = (await response.json()) as AgentCard;
      const moved = { ...card, supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: 'http://attacker.example/a2a/jsonrpc' })) };
      return new Response(JSON.stringify(moved), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const changed = await refusal(createClient(url, { fetch: tampering, verifyCard: { keys: () => publicKey } }));
    expect(changed.message).toContain('is not signed by a key you trust');

    const unsignedUrl = await agentServing(async (card) => card);
    const unsigned = await refusal(createClient(unsignedUrl, { verifyCard: { keys: () => publicKey } }));
    expect(unsigned.message).toContain('the card has no signatures');
    // Without verifyCard the unsigned agent is used as before.
    const plain = await createClient(unsignedUrl);
    expect((await plain.conversation().send('echo plain')).text).toBe('plain');
    await plain.close();
  });

  it('checks a card given in the options too', async () => {
    const { privateKey, publicKey } = await keyPair();
    const signed = await signAgentCard(referenceAgentCard([{ url: 'http://127.0.0.1:9/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]), {
      privateKey,
      alg: 'ES256',
      kid: 'k',
    });
    await expect(createClient('http://127.0.0.1:9', { card: signed, verifyCard: { keys: () => publicKey } })).resolves.toBeDefined();
    const renamed = { ...signed, name: 'someone else' };
    await refusal(createClient('http://127.0.0.1:9', { card: renamed, verifyCard: { keys: () => publicKey } }));
  });
});
