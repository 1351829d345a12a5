import { createMemoryTaskStore, signAgentCard, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterEach, describe, expect, it } from 'vitest';
import { parseProtoJsonStrictly } from '../../core/scripts/proto-registry.js';
import { httpInterfaces } from './agent-card.js';
import type { A2AServer } from './serve.js';
import { serveA2A } from './serve.js';

/** A strict ProtoJSON reader built by protoc from proto/: unknown fields, wrong types and unknown enum names throw. */
const parseAgentCard = (json: unknown) => parseProtoJsonStrictly('lf.a2a.v1.AgentCard', json);

let server: A2AServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function served(options: { v03Discovery?: boolean; card?: Parameters<typeof serveA2A>[0]['card'] } = {}): Promise<unknown> {
  const card = referenceAgentCard([]);
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card });
  server = await serveA2A({ service, ...options });
  const response = await fetch(`${server.url}/.well-known/agent-card.json`);
  expect(response.status).toBe(200);
  return response.json();
}

describe('the served agent card, read by a strict ProtoJSON parser of lf.a2a.v1.AgentCard', () => {
  it('parses as served by default (the service card with this server’s interfaces)', async () => {
    const card = await served();
    expect(() => parseAgentCard(card)).not.toThrow();
  });

  it('parses with every kind of interface, and signed', async () => {
    const { privateKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
    const full = (url: string) =>
      referenceAgentCard([
        ...httpInterfaces(url),
        { url: '127.0.0.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: `${url.replace(/^http/, 'ws')}/a2a/ws`, protocolBinding: 'https://taskwire.dev/bindings/trpc-ws/v1', protocolVersion: '1.0' },
      ]);
    const withAll = await served({ card: full });
    expect(() => parseAgentCard(withAll)).not.toThrow();
    await server!.close();
    const signed = await signAgentCard(full('http://agent.example'), { privateKey, alg: 'ES256', kid: 'k1' });
    const servedSigned = await served({ card: signed });
    expect(servedSigned).toEqual(signed);
    expect(() => parseAgentCard(servedSigned)).not.toThrow();
  });

  it('is refused by that parser once the v0.3 discovery fields are on (which is why they are an option)', async () => {
    const card = await served({ v03Discovery: true });
    expect(card).toHaveProperty('url');
    expect(() => parseAgentCard(card)).toThrow(/url|unknown/i);
  });
});
