// The inspector answers its own page only: a real inspector on 127.0.0.1,
// asked with the Host and Origin a DNS-rebinding page would send, without
// its token or with a wrong one; the page's headers; the webhook receiver's
// methods and paths; a non-loopback --host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInspect } from '../src/inspect-command.js';
import type { RunningInspector } from '../src/server.js';
import { startInspector } from '../src/server.js';
import { rawRequest } from './http-kit.js';

let inspector: RunningInspector;
let port = 0;
let token = '';
beforeAll(async () => {
  inspector = await startInspector();
  const url = new URL(inspector.url);
  port = Number(url.port);
  token = url.searchParams.get('token')!;
});
afterAll(() => inspector.close());

/** A JSON POST to the inspector's API at `path`, as a page on `host` would send it. */
function apiCall(path: string, host: string, extra: Record<string, string> = {}, body: unknown = {}) {
  return rawRequest(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { host, 'content-type': 'application/json', ...extra }, body: JSON.stringify(body) });
}
const errorOf = (answer: { body: string }) => (JSON.parse(answer.body) as { error: { message: string } }).error.message;

describe('the inspector API', () => {
  it('holds a 256-bit random token in the URL it prints, a new one per inspector', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await startInspector();
    try {
      expect(new URL(other.url).searchParams.get('token')).not.toBe(token);
    } finally {
      await other.close();
    }
  });

  it('answers the page on a loopback name and its own port, with the token', async () => {
    for (const name of ['127.0.0.1', 'localhost', '[::1]']) {
      const host = `${name}:${port}`;
      const answer = await apiCall('/api/webhook', host, { origin: `http://${host}`, 'x-inspector-token': token });
      expect(answer.status, host).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhook\//) });
    }
  });

  it('refuses a rebound name (the Host and Origin of a page on rebind.evil.example), even with the token', async () => {
    const host = `rebind.evil.example:${port}`;
    const inspect = await apiCall('/api/inspect', host, { origin: `http://${host}`, 'x-inspector-token': token }, { url: 'http://169.254.169.254/' });
    expect(inspect.status).toBe(403);
    expect(errorOf(inspect)).toContain('answers only at 127.0.0.1, localhost or [::1]');
    const webhook = await apiCall('/api/webhook', host, { origin: `http://${host}`, 'x-inspector-token': token });
    expect(webhook.status).toBe(403);
    expect(webhook.body).not.toContain('/webhook/');
    // The page itself is not served there either.
    expect((await rawRequest(`http://127.0.0.1:${port}/`, { headers: { host } })).status).toBe(403);
  });

  it('refuses a loopback name on another port, a Host with no port, and another Origin', async () => {
    const withToken = { 'x-inspector-token': token };
    expect((await apiCall('/api/webhook', `127.0.0.1:${port + 1}`, withToken)).status).toBe(403);
    expect((await apiCall('/api/webhook', 'localhost', withToken)).status).toBe(403);
    const host = `127.0.0.1:${port}`;
    for (const origin of [`http://rebind.evil.example:${port}`, `http://localhost:${port}`, 'null', `https://${host}`]) {
      expect((await apiCall('/api/webhook', host, { ...withToken, origin })).status, origin).toBe(403);
    }
  });

  it('refuses a call without the token or with a wrong one (401), and tells the user to open the printed URL', async () => {
    const host = `127.0.0.1:${port}`;
    const missing = await apiCall('/api/webhook', host, { origin: `http://${host}` });
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toContain('open the URL the inspector printed');
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const given of [wrong, '', token.slice(1), `${token}x`]) expect((await apiCall('/api/webhook', host, { 'x-inspector-token': given })).status, given).toBe(401);
    expect((await apiCall('/api/inspect', host, {}, { url: 'http://127.0.0.1:9/' })).status).toBe(401);
  });

  it('serves the page with frame-ancestors none and its other protections', async () => {
    const page = await rawRequest(`http://127.0.0.1:${port}/`, { headers: { host: `localhost:${port}` } });
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["frame-ancestors 'none'", "default-src 'none'", "script-src 'self'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'"]));
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });
});

describe('the webhook receiver', () => {
  it('keeps POSTs at its secret path only: another method there is 405, another path 404, and neither is kept', async () => {
    const host = `127.0.0.1:${port}`;
    const read = async () => JSON.parse((await apiCall('/api/webhook', host, { 'x-inspector-token': token })).body) as { url: string; deliveries: { method: string; body: unknown }[] };
    const { url } = await read();
    const hook = new URL(url);
    expect(hook.pathname).toMatch(/^\/webhook\/[0-9a-f-]{36}$/);
    const get = await rawRequest(url);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect((await rawRequest(url, { method: 'PUT', body: '{"put":1}' })).status).toBe(405);
    expect((await rawRequest(`${hook.origin}/webhook/other`, { method: 'POST', body: '{"other":1}' })).status).toBe(404);
    expect((await rawRequest(`${url}x`, { method: 'POST', body: '{"other":1}' })).status).toBe(404);
    expect((await rawRequest(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ok":1}' })).status).toBe(200);
    expect((await read()).deliveries.map((d) => [d.method, d.body])).toEqual([['POST', { ok: 1 }]]);
  });
});

describe('--host other than loopback', () => {
  it('prints a warning, and the API still needs the token (any IP address as Host, never a name)', async () => {
    const controller = new AbortController();
    let out = '';
    let err = '';
    let printed!: () => void;
    const started = new Promise<void>((resolve) => (printed = resolve));
    const io = { stdout: { write: (t: string) => ((out += t), printed()) }, stderr: { write: (t: string) => (err += t) }, env: {}, signal: controller.signal };
    const running = runInspect(['--host', '0.0.0.0'], io);
    await started;
    try {
      expect(err).toContain("warning: --host 0.0.0.0 is not this machine's loopback");
      const url = new URL(/http:\S+/.exec(out)![0]);
      const exposedToken = url.searchParams.get('token')!;
      expect(exposedToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const call = (host: string, extra: Record<string, string>) =>
        rawRequest(`http://127.0.0.1:${url.port}/api/webhook`, { method: 'POST', headers: { host, 'content-type': 'application/json', ...extra }, body: '{}' });
      expect((await call(`192.0.2.7:${url.port}`, {})).status).toBe(401);
      expect((await call(`192.0.2.7:${url.port}`, { 'x-inspector-token': exposedToken })).status).toBe(200);
      expect((await call(`rebind.evil.example:${url.port}`, { 'x-inspector-token': exposedToken })).status).toBe(403);
    } finally {
      controller.abort();
    }
    expect(await running).toBe(0);
  });

  it('says so on the running inspector (exposed), and not for loopback', async () => {
    const open = await startInspector({ host: '0.0.0.0' });
    await open.close();
    expect(open.exposed).toBe(true);
    expect(inspector.exposed).toBe(false);
  });
});
