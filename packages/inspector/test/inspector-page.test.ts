// The inspector's page in headless Chromium, against a deliberately broken
// card, the reference agent (every transport) and an @a2a-js/sdk agent.
// With TASKWIRE_SCREENSHOTS=1 they save the README's screenshots (docs/*.png).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startAgent } from '@taskwire/reference-agent/browser-kit';
import { describe, expect } from 'vitest';
import { inspectorSuite, say, screenshot, shownTimeline, waitForState } from './browser-kit.js';
import { startPeerAgent } from './peer-agent.js';

const { test, open, cleanup } = inspectorSuite();

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Serves a card with a problem of each kind at the well-known path (and nothing else: its jku answers 404). */
async function brokenCardServer(): Promise<string> {
  const dead = await closedPort();
  let base = '';
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k1', jku: `${base}/jwks.json` })).toString('base64url');
    const card = {
      description: 'A card with a problem of each kind (no name, no version)',
      preferredTransport: 'JSONRPC',
      supportedInterfaces: [
        { url: `http://127.0.0.1:${dead}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${base}/soap`, protocolBinding: 'SOAP', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [{ protected: header, signature: 'AAAA' }],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup(() => new Promise((resolve) => server.close(() => resolve())));
  return base;
}

describe('the inspector page in headless Chromium', () => {
  test('shows each problem of a broken card by field path and spec rule, and which interface a client would pick', async () => {
    const url = await brokenCardServer();
    const { page } = await open(url);
    const problems = await page.$$eval('#card-problems tbody tr', (rows) =>
      rows.map((r) => ({ severity: r.getAttribute('data-severity'), path: r.getAttribute('data-path'), text: r.textContent ?? '' })),
    );
    const at = (path: string) => problems.filter((p) => p.path === path);
    expect(at('name')[0]).toMatchObject({ severity: 'error', text: expect.stringContaining('§4.4.1 AgentCard: required field') });
    expect(at('version')[0]).toMatchObject({ severity: 'error', text: expect.stringContaining('required field "version" is missing') });
    expect(at('(v0.3 compatibility)')).toEqual([{ severity: 'info', path: '(v0.3 compatibility)', text: expect.stringContaining('"preferredTransport" serve v0.3 clients') }]);
    expect(at('supportedInterfaces[1].protocolBinding')[0]).toMatchObject({ severity: 'warning', text: expect.stringContaining('unknown binding "SOAP"') });
    expect(at('supportedInterfaces[0].url')[0]).toMatchObject({ severity: 'error', text: expect.stringContaining('does not answer') });
    expect(at('signatures[0]')[0]).toMatchObject({ severity: 'error', text: expect.stringMatching(/§8\.4\.3.*jku .*jwks\.json answered HTTP 404/) });
    // The transports table: the dead interface unreachable, the unknown binding not spoken.
    const probes = await page.$$eval('#probes tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-binding'), r.getAttribute('data-status')]));
    expect(probes).toEqual([
      ['JSONRPC', 'unreachable'],
      ['SOAP', 'unsupported'],
    ]);
    expect(await page.textContent('#choices')).toContain('picked, the first interface in the card');
    await screenshot(page.locator('#card-panel'), 'card-problems');
  });

  test('lists the redirects of the card request: the one to another origin is shown, not followed', async () => {
    const target = await brokenCardServer();
    const hop = createServer((_req, res) => void res.writeHead(302, { location: `${target}/.well-known/agent-card.json` }).end());
    await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
    cleanup(() => new Promise((resolve) => hop.close(() => resolve())));
    const { page } = await open(`http://127.0.0.1:${(hop.address() as AddressInfo).port}`);
    const hops = await page.$$eval('#redirects li', (items) => items.map((i) => [i.getAttribute('data-followed'), i.textContent]));
    expect(hops).toEqual([['false', expect.stringMatching(new RegExp(`^HTTP 302 .* -> ${target}/\\.well-known/agent-card\\.json: not followed$`))]]);
    expect(await page.textContent('#card-problems')).toContain('goes to another origin');
  });

  test('streams a task over gRPC (through the Node side), cancels it, and shows every event in order in the timeline', async () => {
    const agent = await startAgent();
    cleanup(() => agent.close());
    const { page } = await open(agent.baseUrl);
    // Every interface of the reference agent answers, each in v1.0.
    const probes = await page.$$eval('#probes tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-binding'), r.getAttribute('data-status'), r.children[3]!.textContent]));
    expect(probes.map((p) => p[1])).toEqual(['answered', 'answered', 'answered', 'answered']);
    expect(probes.map((p) => p[2])).toEqual(['1.0', '1.0', '1.0', '1.0']);
    expect(await page.$$eval('#card-problems tbody tr[data-severity="error"]', (rows) => rows.length)).toBe(0);
    // Its v0.3 fields (kept for v0.3 clients) are one row of expected compatibility, not a problem per field.
    const rows = await page.$$eval('#card-problems tbody tr', (trs) => trs.map((r) => [r.getAttribute('data-severity'), r.getAttribute('data-path'), r.textContent ?? '']));
    expect(rows.filter((r) => r[2]!.includes('v0.3'))).toEqual([['info', '(v0.3 compatibility)', expect.stringContaining('expected compatibility, not a problem')]]);

    const grpc = probes.findIndex((p) => p[0] === 'GRPC');
    await say(page, 'slow 500 20', grpc);
    await page.waitForFunction(() => document.querySelectorAll('#timeline tbody tr').length >= 8);
    expect(await page.isEnabled('#cancel')).toBe(true);
    await page.click('#cancel');
    await waitForState(page, 'TASK_STATE_CANCELED');

    const timeline = await shownTimeline(page);
    expect(timeline[0]).toMatchObject({ index: 1, kind: 'task', state: 'TASK_STATE_SUBMITTED' });
    expect(timeline.at(-1)).toMatchObject({ kind: 'statusUpdate', state: 'TASK_STATE_CANCELED' });
    // Every event numbered by the agent, in order, none missing or repeated, none flagged.
    expect(timeline.map((e) => Number(e.sequence))).toEqual(timeline.map((_, i) => i + 1));
    expect(timeline.filter((e) => e.flags !== '')).toEqual([]);
    const taskId = await page.textContent('#task-id');
    const stored = await agent.service.unary('GetTask', { id: taskId! }, {});
    expect(stored.status.state).toBe('TASK_STATE_CANCELED');
    const chunks = timeline.filter((e) => e.kind === 'artifactUpdate').length;
    const shownText = await page.textContent('#artifacts [data-artifact-id="output"] pre');
    expect(shownText!.trim().split('\n')).toHaveLength(chunks);
    await page.click('#timeline tbody tr:last-child summary');
    await page.evaluate(() => (document.querySelector('#timeline-scroll')!.scrollTop = 1e6));
    await screenshot(page.locator('#conversation-panel'), 'conversation');
  });

  test('continues a task after input-required over WebSocket, runs the checks (all pass on the reference agent), lists and gets tasks', async () => {
    const agent = await startAgent();
    cleanup(() => agent.close());
    const { page } = await open(agent.baseUrl);
    const ws = await page.$$eval('#probes tbody tr', (rows) => rows.findIndex((r) => r.getAttribute('data-binding')!.includes('trpc-ws')));
    await say(page, 'a sunset quote please', ws);
    await waitForState(page, 'TASK_STATE_INPUT_REQUIRED');
    const asked = await page.textContent('#task-id');
    expect(await page.textContent('#route')).toContain(`continues task ${asked}`);
    await say(page, 'insta', ws);
    await waitForState(page, 'TASK_STATE_COMPLETED');
    expect(await page.textContent('#task-id')).toBe(asked);
    expect(await page.$$eval('#history li', (items) => items.map((i) => i.getAttribute('data-role')))).toEqual(['user', 'agent', 'user', 'agent', 'agent']);
    expect(await page.isVisible('#artifacts [data-artifact-id="quote"]')).toBe(true);

    await page.click('#run-checks');
    await page.waitForSelector('#check-results li[data-check]');
    const checks = await page.$$eval('#check-results > li', (items) => items.map((i) => [i.getAttribute('data-check'), i.getAttribute('data-status')]));
    expect(checks).toEqual(['card', 'stream-terminal', 'get-after-completion', 'cancel', 'resubscribe', 'resume', 'error-codes'].map((id) => [id, 'passed']));

    // Tasks: ListTasks two at a time, the next page, a filter on the quote's context; GetTask with a history length.
    const listed = async (action: () => Promise<void>) => {
      const before = await page.getAttribute('#task-list', 'data-listed');
      await action();
      await page.waitForFunction((b) => document.querySelector('#task-list')!.getAttribute('data-listed') !== b, before);
      return page.$$eval('#task-list tbody tr', (rows) => rows.map((r) => r.getAttribute('data-task-id')!));
    };
    await page.fill('#page-size', '2');
    const first = await listed(() => page.click('#list-tasks'));
    expect(first).toHaveLength(2);
    expect(await page.isEnabled('#next-page')).toBe(true);
    const second = await listed(() => page.click('#next-page'));
    expect(second).toHaveLength(2);
    expect(second.filter((id) => first.includes(id))).toEqual([]);
    const { contextId } = await agent.service.unary('GetTask', { id: asked! }, {});
    await page.fill('#filter-context', contextId);
    expect(await listed(() => page.click('#list-tasks'))).toEqual([asked]);
    await page.fill('#get-id', asked!);
    await page.fill('#history-length', '1');
    await page.click('#get-task');
    await page.waitForFunction(() => document.querySelector('#got-task')!.textContent!.includes('"history"'));
    const got = JSON.parse((await page.textContent('#got-task'))!) as { id: string; history: unknown[] };
    expect(got.id).toBe(asked);
    expect(got.history).toHaveLength(1);

    await screenshot(page.locator('#checks-panel'), 'checks');
  });

  test('sends a data part and a file part, and resubscribes to a running task (the new stream starts with the task as it is)', async () => {
    const agent = await startAgent();
    cleanup(() => agent.close());
    const { page } = await open(agent.baseUrl);
    await page.selectOption('#part-kind', 'data');
    await say(page, '{"city": "Lyon"}');
    await waitForState(page, 'TASK_STATE_COMPLETED');
    const dataTask = (await page.textContent('#task-id'))!;
    await page.selectOption('#part-kind', 'file');
    await page.setInputFiles('#file', { name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('hello file') });
    await say(page, '');
    await page.waitForSelector('#history li:has-text("[file note.txt text/plain]")');
    await waitForState(page, 'TASK_STATE_COMPLETED');
    const fileTask = (await page.textContent('#task-id'))!;
    // What the agent stored: the parts as sent.
    const [sentData, sentFile] = await Promise.all([dataTask, fileTask].map((id) => agent.service.unary('GetTask', { id }, {})));
    expect(sentData!.history![0]!.parts).toEqual([{ data: { city: 'Lyon' } }]);
    expect(sentFile!.history![0]!.parts).toEqual([{ raw: Buffer.from('hello file').toString('base64'), mediaType: 'text/plain', filename: 'note.txt' }]);

    await page.selectOption('#part-kind', 'text');
    await say(page, 'slow 300 20');
    await page.waitForFunction(() => document.querySelectorAll('#timeline tbody tr').length >= 6);
    const running = await page.textContent('#task-id');
    await page.click('#resubscribe');
    await page.waitForSelector('#timeline tbody tr:first-child[data-kind="task"][data-state="TASK_STATE_WORKING"]');
    await page.waitForFunction(() => document.querySelectorAll('#timeline tbody tr').length >= 4);
    await page.click('#cancel');
    await waitForState(page, 'TASK_STATE_CANCELED');
    expect(await page.textContent('#task-id')).toBe(running);
    const timeline = await shownTimeline(page);
    expect(timeline.filter((e) => e.flags !== '')).toEqual([]);
    expect(timeline.at(-1)).toMatchObject({ state: 'TASK_STATE_CANCELED' });
  });

  test('an agent that needs an API key: refused without it, answered with the key typed on the page, which is stored nowhere', async () => {
    const agent = await startAgent('sekret');
    cleanup(() => agent.close());
    const { page } = await open(agent.baseUrl);
    const statuses = () => page.$$eval('#probes tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-status'), r.children[5]!.textContent]));
    for (const [status, detail] of await statuses()) {
      expect(status).toBe('unauthenticated');
      expect(detail).toMatch(/^Unauthenticated \(-32030\)/);
    }
    await page.fill('#api-key', 'sekret');
    // Not a card problem: the interfaces answer, they want credentials.
    expect(await page.$$eval('#card-problems tbody tr[data-severity="error"]', (rows) => rows.length)).toBe(0);
    await page.click('#inspect');
    await page.waitForSelector('#probes tbody tr[data-status="answered"]');
    // The key goes to the agent's origin only: gRPC, on another port, is called without it, and says so.
    const grpc = await page.$$eval('#probes tbody tr', (rows) => rows.findIndex((r) => r.getAttribute('data-binding') === 'GRPC'));
    const keyed = await statuses();
    expect(keyed.map((s) => s[0])).toEqual(keyed.map((_, i) => (i === grpc ? 'unauthenticated' : 'answered')));
    expect(keyed[grpc]![1]).toContain(`credentials not sent: ${agent.urls.grpc} is not on the agent's origin`);
    // Trusting its origin sends the key there too.
    await page.fill('#trusted-origins', agent.urls.grpc);
    await page.click('#inspect');
    await page.waitForFunction(() => document.querySelectorAll('#probes tbody tr[data-status="answered"]').length === 4);
    expect((await statuses()).map((s) => s[0])).toEqual(['answered', 'answered', 'answered', 'answered']);
    await say(page, 'echo unlocked');
    await waitForState(page, 'TASK_STATE_COMPLETED');
    expect(await page.$$eval('#history li', (items) => items.map((i) => i.textContent))).toEqual(['user: echo unlocked', 'agent: unlocked']);
    // Kept in the page's memory only: no storage, no cookie, not in the URL.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
    expect(page.url()).not.toContain('sekret');
  });

  test('carries the token of the printed URL on every call; without it the page says to open that URL and the API answers nothing', async () => {
    const agent = await startAgent();
    cleanup(() => agent.close());
    const { page, inspector } = await open(agent.baseUrl);
    expect(new URL(inspector.url).searchParams.get('token')).toMatch(/^[\w-]{43}$/);
    expect(await page.$$eval('#probes tbody tr', (rows) => rows.length)).toBe(4);
    // The same page without the token: told what to do, and refused when it tries.
    const bare = new URL(inspector.url);
    bare.searchParams.delete('token');
    await page.goto(bare.href);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    expect(await page.textContent('#notice')).toContain('Open the URL that taskwire inspect printed');
    await page.fill('#agent-url', agent.baseUrl);
    await page.click('#inspect');
    await page.waitForSelector('body[data-inspected="true"]', { state: 'attached' });
    expect(await page.textContent('#notice')).toContain('its token is missing or wrong');
    expect(await page.$$eval('#probes tbody tr', (rows) => rows.length)).toBe(0);
  });

  test('an @a2a-js/sdk agent: a streamed task canceled with its timeline (no event ids), and the checks name its gap', async () => {
    const peer = await startPeerAgent();
    cleanup(() => peer.close());
    const { page } = await open(peer.url);
    expect(await page.textContent('#card-version')).toBe('v1.0 card');
    expect(await page.$$eval('#probes tbody tr', (rows) => rows.map((r) => r.getAttribute('data-status')))).toEqual(['answered']);

    await say(page, 'slow 500 20');
    await page.waitForFunction(() => document.querySelectorAll('#timeline tbody tr').length >= 6);
    await page.click('#cancel');
    await waitForState(page, 'TASK_STATE_CANCELED');
    const timeline = await shownTimeline(page);
    expect(timeline[0]).toMatchObject({ kind: 'task' });
    expect(timeline.at(-1)).toMatchObject({ state: 'TASK_STATE_CANCELED' });
    // The peer numbers no events: nothing to flag, and the timeline says so with "-".
    expect(new Set(timeline.map((e) => e.sequence))).toEqual(new Set(['-']));
    expect(timeline.map((e) => e.index)).toEqual(timeline.map((_, i) => i + 1));

    await page.click('#run-checks');
    await page.waitForSelector('#check-results li[data-check]');
    const failed = await page.$$eval('#check-results > li[data-status="failed"]', (items) => items.map((i) => [i.getAttribute('data-check'), i.textContent]));
    expect(failed).toEqual([['resume', expect.stringContaining('its events carry no ids')]]);
  });

  test("the check button runs the card check too: a card with missing fields fails it, each problem named", async () => {
    const url = await brokenCardServer();
    const { page } = await open(url);
    await page.click('#run-checks');
    await page.waitForSelector('#check-results li[data-check]');
    const checks = await page.$$eval('#check-results > li', (items) => items.map((i) => [i.getAttribute('data-check'), i.getAttribute('data-status'), i.textContent ?? '']));
    expect(checks[0]).toEqual(['card', 'failed', expect.stringContaining('error name [§4.4.1 AgentCard: required field]: required field "name" is missing')]);
    expect(checks[0]![2]).toContain('error version [§4.4.1 AgentCard: required field]');
  });
});
