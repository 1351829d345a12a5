// Where the inspector goes, and with what: a real inspector driven through its
// API (with its token), an agent on one port whose card or calls redirect to
// another port (a stand-in for an internal address), and a card naming an
// interface on another origin.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardReport } from '../src/card-report.js';
import type { RunningInspector } from '../src/server.js';
import { startInspector } from '../src/server.js';
import type { RecordingServer } from './http-kit.js';
import { recordingServer } from './http-kit.js';

const SECRET = 'internal-only-credential-stand-in';
let inspector: RunningInspector;
/** The "internal" server: nothing the inspector is given should ever reach it. */
let internal: RecordingServer;
/** The agent the user names. */
let agent: RecordingServer;
/** What `agent` serves at its card path, set per test. */
let card: (base: string) => unknown = () => ({});

const cardOn = (interfaceUrl: string) => ({
  name: 'scoped',
  description: 'An agent whose card names an interface',
  version: '1.0.0',
  supportedInterfaces: [{ url: interfaceUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});
const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

beforeAll(async () => {
  inspector = await startInspector();
  internal = await recordingServer((_req, res) => send(res, 200, { secret: SECRET }));
  agent = await recordingServer((req, res, base) => {
    if (req.url === '/.well-known/agent-card.json') return send(res, 200, card(base));
    if (req.url === '/to-internal/agent-card.json') return send(res, 302, {}, { location: `${internal.url}/latest/meta-data/credentials` });
    if (req.url === '/moved/agent-card.json') return send(res, 301, {}, { location: '/.well-known/agent-card.json' });
    if (req.url === '/rpc-redirects') return send(res, 307, {}, { location: `${internal.url}/rpc` });
    send(res, 404, {});
  });
});
afterAll(async () => {
  await inspector.close();
  await Promise.all([internal.close(), agent.close()]);
});

/** Calls the inspector's API as its page does (its origin, its token). */
async function api<T>(path: string, body: unknown): Promise<{ status: number; value: T }> {
  const url = new URL(inspector.url);
  const response = await fetch(new URL(path, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inspector-token': url.searchParams.get('token')! },
    body: JSON.stringify(body),
  });
  return { status: response.status, value: (await response.json()) as T };
}

const credentials = { apiKey: 'the-api-key', bearer: 'the-bearer' };

describe('the card fetch', () => {
  it('shows a redirect to another origin and does not follow it: nothing reaches the internal address, nothing of it comes back', async () => {
    const { status, value } = await api<CardReport>('/api/inspect', { url: `${agent.url}/to-internal/agent-card.json`, credentials });
    expect(status).toBe(200);
    expect(value.redirects).toEqual([{ status: 302, from: `${agent.url}/to-internal/agent-card.json`, to: `${internal.url}/latest/meta-data/credentials`, followed: false }]);
    expect(value.httpStatus).toBe(302);
    expect(value.problems).toEqual([expect.objectContaining({ path: '(card)', severity: 'error', message: expect.stringContaining('goes to another origin') })]);
    expect(JSON.stringify(value)).not.toContain(SECRET);
    expect(internal.requests).toEqual([]);

    // A call on that agent fetches its card the same way: refused, and still nothing reaches the internal address.
    const call = await api<{ error: { message: string } }>('/api/call', { url: `${agent.url}/to-internal/agent-card.json`, credentials, method: 'GetTask', params: { id: 't' } });
    expect(call.status).toBe(502);
    expect(call.value.error.message).toContain('goes to another origin');
    expect(internal.requests).toEqual([]);
  });

  it('follows a redirect on the same origin, and shows it', async () => {
    card = () => cardOn(`${agent.url}/rpc`);
    const { value } = await api<CardReport>('/api/inspect', { url: `${agent.url}/moved/agent-card.json` });
    expect(value.redirects).toEqual([{ status: 301, from: `${agent.url}/moved/agent-card.json`, to: `${agent.url}/.well-known/agent-card.json`, followed: true }]);
    expect(value.httpStatus).toBe(200);
    expect(value.card?.name).toBe('scoped');
  });
});

describe('credentials', () => {
  it("go to the agent's origin only: an interface on another port is called without them unless its origin is trusted", async () => {
    card = () => cardOn(`${internal.url}/rpc`);
    internal.requests.length = 0;
    const before = agent.requests.length;
    const { value } = await api<CardReport>('/api/inspect', { url: agent.url, credentials });
    // The card request (on the agent's origin) carried them.
    expect(agent.requests.slice(before).map((r) => [r.path, r.headers['x-api-key'], r.headers.authorization])).toEqual([['/.well-known/agent-card.json', 'the-api-key', 'Bearer the-bearer']]);
    // The interface on another origin did not get them, and the probe says why.
    expect(internal.requests.length).toBeGreaterThan(0);
    for (const request of internal.requests) expect([request.headers['x-api-key'], request.headers.authorization]).toEqual([undefined, undefined]);
    expect(value.probes[0]!.detail).toContain(`credentials not sent: ${internal.url}/rpc is not on the agent's origin`);

    internal.requests.length = 0;
    const trusted = await api<CardReport>('/api/inspect', { url: agent.url, credentials: { ...credentials, trustedOrigins: [internal.url] } });
    expect(internal.requests.length).toBeGreaterThan(0);
    for (const request of internal.requests) expect([request.headers['x-api-key'], request.headers.authorization]).toEqual(['the-api-key', 'Bearer the-bearer']);
    expect(trusted.value.probes[0]!.detail).not.toContain('credentials not sent');
  });

  it('never follow a call that redirects (a 307 to another port gets neither the request nor the key)', async () => {
    card = () => cardOn(`${agent.url}/rpc-redirects`);
    internal.requests.length = 0;
    const url = `${agent.url}/?fresh=${Date.now()}`; // a card the inspector has not kept yet
    const call = await api<{ error?: { message: string } }>('/api/call', { url, credentials, method: 'GetTask', params: { id: 't' } });
    expect(call.value.error?.message).toContain(`the agent answered HTTP 307 to ${internal.url}/rpc: the inspector follows no redirect of a call`);
    expect(internal.requests).toEqual([]);
  });

  it('are refused as anything but a list of origins', async () => {
    const { status, value } = await api<{ error: { message: string } }>('/api/inspect', { url: agent.url, credentials: { ...credentials, trustedOrigins: 'http://x' } });
    expect(status).toBe(400);
    expect(value.error.message).toContain('trustedOrigins');
  });
});
