// `taskwire inspect --check`, run in-process against the reference agent (all
// transports, served for real) and against an @a2a-js/sdk agent.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAgent } from '@taskwire/reference-agent/browser-kit';
import type { RunningAgent } from '@taskwire/reference-agent/serve';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInspect } from '../src/inspect-command.js';
import type { PeerAgent } from './peer-agent.js';
import { startPeerAgent } from './peer-agent.js';

let agent: RunningAgent;
let peer: PeerAgent;
beforeAll(async () => {
  [agent, peer] = await Promise.all([startAgent(), startPeerAgent()]);
});
afterAll(async () => {
  await Promise.all([agent?.close(), peer?.close()]);
});

async function check(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runInspect(['--check', ...argv], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {} });
  return { code, out, err };
}


/** What the checks find on the @a2a-js/sdk agent, whichever transport: all pass but resumption (its events carry no ids). */
const PEER_STATUSES = {
  card: 'passed',
  'stream-terminal': 'passed',
  'get-after-completion': 'passed',
  cancel: 'passed',
  resubscribe: 'passed',
  resume: 'failed',
  'error-codes': 'passed',
};
describe('taskwire inspect --check', () => {
  it.each([0, 1, 2, 3])('passes on the reference agent over supportedInterfaces[%i]', async (index) => {
    const { code, out, err } = await check(agent.baseUrl, '--interface', String(index));
    expect(err).toBe('');
    expect(out).toContain('All checks passed.');
    expect(out.match(/^PASS /gm)).toHaveLength(7);
    expect(code).toBe(0);
  }, 60_000);

  it("reports the @a2a-js/sdk agent's gap (no event ids, so no resumption) and exits 1", async () => {
    const { code, out } = await check(peer.url, '--json');
    const report = JSON.parse(out) as { interface: { protocolBinding: string }; checks: { id: string; status: string; evidence: string[] }[] };
    expect(report.interface.protocolBinding).toBe('JSONRPC');
    const statuses = Object.fromEntries(report.checks.map((c) => [c.id, c.status]));
    expect(statuses).toEqual(PEER_STATUSES);
    const resume = report.checks.find((c) => c.id === 'resume')!;
    expect(resume.evidence.join('\n')).toContain('its events carry no ids');
    expect(code).toBe(1);
  }, 60_000);

  it.each([
    [0, 'JSONRPC'],
    [1, 'HTTP+JSON'],
    [2, 'GRPC'],
  ])('checks the @a2a-js/sdk agent over supportedInterfaces[%i] (%s), every transport it offers', async (index, binding) => {
    const all = await startPeerAgent({ allTransports: true });
    try {
      const { code, out } = await check(all.url, '--interface', String(index), '--json');
      const report = JSON.parse(out) as { interface: { protocolBinding: string }; probes: { status: string }[]; checks: { id: string; status: string }[] };
      expect(report.interface.protocolBinding).toBe(binding);
      expect(report.probes.map((p) => p.status)).toEqual(['answered', 'answered', 'answered']);
      expect(Object.fromEntries(report.checks.map((c) => [c.id, c.status]))).toEqual(PEER_STATUSES);
      expect(code).toBe(1);
    } finally {
      await all.close();
    }
  }, 60_000);

  it("sends --api-key to the agent URL's origin only: gRPC on another port fails without it, passes once --trust-origin names it", async () => {
    const keyed = await startAgent('sekret');
    try {
      const served = (await (await fetch(keyed.urls.card)).json()) as { supportedInterfaces: { protocolBinding: string }[] };
      const grpc = String(served.supportedInterfaces.findIndex((i) => i.protocolBinding === 'GRPC'));
      const bare = await check(keyed.baseUrl, '--api-key', 'sekret', '--interface', grpc, '--json');
      const report = JSON.parse(bare.out) as { probes: { binding: string; status: string; detail: string }[] };
      const probe = report.probes.find((p) => p.binding === 'GRPC')!;
      expect(probe).toMatchObject({ status: 'unauthenticated', detail: expect.stringContaining('credentials not sent') });
      expect(bare.code).toBe(1);
      const trusted = await check(keyed.baseUrl, '--api-key', 'sekret', '--interface', grpc, '--trust-origin', keyed.urls.grpc);
      expect(trusted.out).toContain('All checks passed.');
      expect(trusted.code).toBe(0);
    } finally {
      await keyed.close();
    }
  }, 60_000);

  it('checks the card under the path of the URL given, not the root one', async () => {
    const card = (await (await fetch(`${agent.baseUrl}/.well-known/agent-card.json`)).json()) as { name: string };
    const server = createServer((req, res) => {
      if (req.url !== '/agents/quotes/.well-known/agent-card.json') return void res.writeHead(404).end('not here');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...card, name: 'Quotes under a path' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { code, out } = await check(`${base}/agents/quotes`);
      expect(out).toMatch(/^Checking Quotes under a path over /);
      expect(out).toContain('All checks passed.');
      expect(code).toBe(0);
      const wrong = await check(`${agent.baseUrl}/nope`);
      expect(wrong.code).toBe(3);
      expect(wrong.err).toContain(`the agent's card at ${agent.baseUrl}/nope/.well-known/agent-card.json cannot be used`);
      expect(wrong.err).toContain(`answered HTTP 404`);
      expect(wrong.err).toContain(`${agent.baseUrl}/nope has a path, so its card is looked for under that path (to check the agent whose card is at ${agent.baseUrl}/.well-known/agent-card.json, give ${agent.baseUrl})`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('names a port fetch refuses (9) as blocked', async () => {
    const { code, err } = await check('http://127.0.0.1:9/');
    expect(code).toBe(3);
    expect(err).toContain('port 9 is a blocked port: fetch, as browsers do, refuses to connect to it');
  });

  it('exits 3 when there is no card, and 2 on a usage error', async () => {
    const { close } = await startPeerAgent();
    await close();
    expect((await check('http://127.0.0.1:9/')).code).toBe(3);
    expect((await check()).code).toBe(2);
  });
});
