// inspectCard over real HTTP: a signed card whose jku serves its key, the same
// card changed after signing, and a v0.3 card in front of the reference agent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@taskwire/core';
import { signAgentCard } from '@taskwire/core';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { startAgent } from '@taskwire/reference-agent/browser-kit';
import { serveAll, type RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectCard } from '../src/card-report.js';
import { runChecks } from '../src/checks.js';
import { clientFor } from '../src/transports.js';
import { v03Card } from './v03-card-server.js';

let agent: RunningAgent;
let base = '';
/** What the card server serves, by path. */
const served = new Map<string, unknown>();
const server = createServer((req, res) => {
  const body = served.get(req.url ?? '');
  if (body === undefined) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
});

beforeAll(async () => {
  agent = await startAgent();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  await new Promise((resolve) => server.close(resolve));
});

async function signedCard(): Promise<AgentCard> {
  const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = { ...(await crypto.subtle.exportKey('jwk', keys.publicKey)), kid: 'k1', alg: 'ES256' };
  served.set('/jwks.json', { keys: [jwk] });
  const card = referenceAgentCard([{ url: agent.urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  return signAgentCard(card, { privateKey: keys.privateKey, alg: 'ES256', kid: 'k1', jku: `${base}/jwks.json` });
}

describe('inspectCard', () => {
  it('says a signature verifies with the key its jku serves, and that a card changed after signing does not', async () => {
    const card = await signedCard();
    served.set('/signed/.well-known/agent-card.json', card);
    served.set('/changed/agent-card.json', { ...card, description: 'changed after signing' });

    const good = await inspectCard(`${base}/signed/.well-known/agent-card.json`);
    expect(good.problems.filter((p) => p.path.startsWith('signatures'))).toEqual([
      { path: 'signatures[0]', rule: '§8.4.3 Signature verification', message: 'verifies (alg ES256, kid k1, key from its jku)', severity: 'info' },
    ]);
    const bad = await inspectCard(`${base}/changed/agent-card.json`);
    expect(bad.problems.filter((p) => p.path.startsWith('signatures'))).toEqual([
      expect.objectContaining({ path: 'signatures[0]', severity: 'error', message: expect.stringContaining('the signature does not match the card') }),
    ]);
  });

  it('takes a card announcing A2A 1.1 (the dev-1.1 draft) as no problem, and speaks 1.1 to an agent that serves it', async () => {
    const next = await serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey: undefined, drainGraceMs: 1_000, protocolV1_1: true });
    try {
      served.set('/v11/agent-card.json', referenceAgentCard([{ url: next.urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '1.1' }]));
      const report = await inspectCard(`${base}/v11/agent-card.json`);
      expect(report.problems.filter((p) => p.path.endsWith('protocolVersion'))).toEqual([]);
      expect(report.probes).toEqual([expect.objectContaining({ binding: 'JSONRPC', status: 'answered', acceptedVersion: '1.1' })]);
    } finally {
      await next.close();
    }
  });

  it('reads a v0.3 card: its fields are warnings, its JSON-RPC interface is spoken in v0.3, and the checks run over it', async () => {
    served.set('/v03/agent-card.json', v03Card(agent.urls.jsonRpc));
    const report = await inspectCard(`${base}/v03/agent-card.json`);
    expect(report.cardVersion).toBe('0.3');
    expect(report.problems.map((p) => [p.path, p.severity])).toEqual([
      ['url', 'warning'],
      ['preferredTransport', 'warning'],
      ['protocolVersion', 'warning'],
    ]);
    expect(report.probes).toEqual([expect.objectContaining({ binding: 'JSONRPC', status: 'answered', acceptedVersion: '0.3', detail: 'TaskNotFound (-32001)' })]);
    expect(report.choices[0]!.reasons[0]).toContain('picked');

    const client = clientFor(report.card!, undefined);
    try {
      expect(client.version).toBe('0.3');
      const results = await runChecks(client);
      const statuses = Object.fromEntries(results.map((r) => [r.id, r.status]));
      expect(statuses['stream-terminal']).toBe('passed');
      expect(statuses['get-after-completion']).toBe('passed');
      expect(statuses['cancel']).toBe('passed');
      expect(statuses['error-codes']).toBe('passed');
    } finally {
      await client.close();
    }
  });
});
