// A hostile agent (escape sequences, OSC 52, CR, BEL, U+009B CSI in every string it sends) driving
// the real `taskwire` entry: human output carries none of its control characters, --json stays exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Origin } from './origin-servers.js';
import { json, origin, runCli } from './origin-servers.js';

/** Clipboard write (OSC 52), clear screen, carriage return over a forged line, bell, C1 CSI and NEL, a right-to-left override and zero-width characters. */
const EVIL = 'ok\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rforged\u009b31m\u0085\u007f\u202e\u2066\u200b\ufeffend';
/** Any control character but newline and tab. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;
/** Bidi controls and zero-width characters (human output drops them; --json keeps them, being exact). */
const HIDDEN = /[\u061C\u200B-\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/;

let agent: Origin;
let card: Record<string, unknown>;
const task = {
  id: 't1',
  contextId: 'c1',
  status: { state: 'TASK_STATE_COMPLETED', message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: `said ${EVIL}` }] } },
  artifacts: [{ artifactId: 'a1', name: `art ${EVIL}`, parts: [{ text: `body ${EVIL}` }, { url: 'https://files.example/f', filename: `file ${EVIL}.txt` }] }],
};

beforeAll(async () => {
  agent = await origin((request, response) => {
    if (request.method === 'GET') return json(response, card);
    const call = JSON.parse(request.body) as { id: number; method: string; params: { id?: string } };
    if (call.method === 'GetTask' && call.params.id !== 't1') return json(response, { jsonrpc: '2.0', id: call.id, error: { code: -32001, message: `no such task ${EVIL}` } });
    json(response, { jsonrpc: '2.0', id: call.id, result: call.method === 'GetTask' ? task : { task } });
  });
  card = {
    name: `Agent ${EVIL}`,
    description: `desc ${EVIL}`,
    version: `1 ${EVIL}`,
    supportedInterfaces: [{ url: `${agent.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: false },
    skills: [{ id: 's', name: `skill ${EVIL}`, description: `does ${EVIL}`, tags: [], examples: [`try ${EVIL}`] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  };
});
afterAll(() => agent?.close());

describe('the taskwire CLI against a hostile agent', () => {
  it('human output (card, messages, artifacts, file names, errors) carries no control, bidi or zero-width characters', async () => {
    const shown = await runCli(['card', agent.url]);
    expect(shown.code).toBe(0);
    expect(shown.out).not.toMatch(CONTROL);
    expect(shown.out).not.toMatch(HIDDEN);
    expect(shown.out).toContain('Agent ok]52;c;ZXZpbA==[2Jforged31mend');
    expect(shown.out).toContain('skill ok');

    const sent = await runCli(['send', agent.url, 'hello', '--verbose']);
    expect(sent.code).toBe(0);
    expect(sent.out + sent.err).not.toMatch(CONTROL);
    expect(sent.out + sent.err).not.toMatch(HIDDEN);
    expect(sent.out).toContain('said ok]52');
    expect(sent.out).toContain('--- art ok]52');
    expect(sent.out).toContain('[file ok]52');

    const got = await runCli(['get', agent.url, 't1']);
    expect(got.out).not.toMatch(CONTROL);
    expect(got.out).toContain('body ok]52');

    const missing = await runCli(['get', agent.url, 't2']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no such task ok]52');
    expect(missing.err).not.toMatch(CONTROL);
    expect(missing.err).not.toMatch(HIDDEN);
  }, 120_000);

  it('--json output is the exact value the agent sent, with no raw control character', async () => {
    const shown = await runCli(['card', agent.url, '--json']);
    expect(shown.out).not.toMatch(CONTROL);
    expect(JSON.parse(shown.out)).toMatchObject({ name: card.name, description: card.description, skills: card.skills });
    const sent = await runCli(['send', agent.url, 'hello', '--json']);
    expect(sent.out).not.toMatch(CONTROL);
    expect((JSON.parse(sent.out) as { task: unknown }).task).toEqual(task);
  }, 120_000);
});
