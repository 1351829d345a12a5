// The inspector's page in headless Chromium against other agents than the
// reference one: an @a2a-js/sdk agent over every transport it offers, and a
// v0.3 card in front of the reference agent.
import { startAgent } from '@taskwire/reference-agent/browser-kit';
import { describe, expect } from 'vitest';
import { inspectorSuite, say, waitForState } from './browser-kit.js';
import { startPeerAgent } from './peer-agent.js';
import { v03CardServer } from './v03-card-server.js';

const { test, open, cleanup } = inspectorSuite();

describe('the inspector page with other agents', () => {
  test('an @a2a-js/sdk agent over every transport it offers (JSON-RPC, HTTP+JSON, gRPC): each answers and completes a task', async () => {
    const peer = await startPeerAgent({ allTransports: true });
    cleanup(() => peer.close());
    const { page } = await open(peer.url);
    const probes = await page.$$eval('#probes tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-binding'), r.getAttribute('data-status')]));
    expect(probes).toEqual([
      ['JSONRPC', 'answered'],
      ['HTTP+JSON', 'answered'],
      ['GRPC', 'answered'],
    ]);
    for (const [index, binding] of probes.map((p, i) => [i, p[0]] as const)) {
      await page.click('#new-task');
      await say(page, `echo over ${binding}`, index);
      await waitForState(page, 'TASK_STATE_COMPLETED');
      expect(await page.$$eval('#history li', (items) => items.map((i) => i.getAttribute('data-role')))).toEqual(['user', 'agent']);
    }
  });

  test('a v0.3 card (in front of the reference agent): read as v0.3, its JSON-RPC interface spoken in v0.3, a task streamed, the checks run', async () => {
    const agent = await startAgent();
    cleanup(() => agent.close());
    const card = await v03CardServer(agent.urls.jsonRpc);
    cleanup(card.close);
    const { page } = await open(card.url);
    expect(await page.textContent('#card-version')).toBe('v0.3 card');
    const probes = await page.$$eval('#probes tbody tr', (rows) => rows.map((r) => [r.getAttribute('data-binding'), r.getAttribute('data-status'), r.children[3]!.textContent]));
    expect(probes).toEqual([['JSONRPC', 'answered', '0.3']]);
    expect(await page.$$eval('#card-problems tbody tr[data-severity="error"]', (rows) => rows.length)).toBe(0);
    await say(page, 'echo from a v0.3 card');
    await waitForState(page, 'TASK_STATE_COMPLETED');
    expect(await page.$$eval('#history li', (items) => items.map((i) => i.textContent))).toEqual(['user: echo from a v0.3 card', 'agent: from a v0.3 card']);
    await page.click('#run-checks');
    await page.waitForSelector('#check-results li[data-check]');
    const checks = Object.fromEntries(await page.$$eval('#check-results > li', (items) => items.map((i) => [i.getAttribute('data-check'), i.getAttribute('data-status')])));
    expect(checks).toMatchObject({ card: 'passed', 'stream-terminal': 'passed', 'get-after-completion': 'passed', cancel: 'passed', 'error-codes': 'passed' });
  });
});
