// A hostile agent on 127.0.0.1 (escape sequences, OSC 52, BEL, CR, U+009B CSI, DEL in its card, its
// answers, its error messages and its token endpoint's error) driving the real `--check` entry: the
// human output carries none of its control characters, --json keeps its exact values.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInspect } from '../src/inspect-command.js';

/** Clipboard write (OSC 52), clear screen, carriage return over a forged line, bell, C1 CSI and NEL, DEL. */
const EVIL = 'ok\u001b]52;c;ZXZpbA==\u0007\u001b[2J\rforged\u009b31m\u0085\u007fend';
/** What a terminal gets of EVIL once stripped. */
const SHOWN = 'ok]52;c;ZXZpbA==[2Jforged31mend';
/** Any control character but newline and tab. */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/;

const TASK_ID = `task ${EVIL}`;
const CONTEXT_ID = `context ${EVIL}`;
const agentMessage = (text: string) => ({ messageId: `m ${EVIL}`, role: 'ROLE_AGENT', parts: [{ text }] });

function json(res: ServerResponse, value: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** Every JSON-RPC call: a stream of a task with hostile ids and texts, or an A2A error with a hostile message. */
function rpc(res: ServerResponse, call: { id: number; method: string; params: { id?: string } }): void {
  const error = (code: number, message: string) => json(res, { jsonrpc: '2.0', id: call.id, error: { code, message } });
  if (call.method === 'SendStreamingMessage') {
    const events = [
      { task: { id: TASK_ID, contextId: CONTEXT_ID, status: { state: 'TASK_STATE_WORKING', message: agentMessage(`working ${EVIL}`) } } },
      { statusUpdate: { taskId: TASK_ID, contextId: CONTEXT_ID, status: { state: 'TASK_STATE_COMPLETED', message: agentMessage(`done ${EVIL}`) } } },
    ];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(events.map((result, i) => `id: ${i + 1}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result })}\n\n`).join(''));
    return;
  }
  if (call.method === 'GetTask') return error(-32001, `no task ${EVIL}`);
  if (call.method === 'CancelTask') return error(-32002, `not cancelable ${EVIL}`);
  if (call.method === 'SubscribeToTask') return error(-32004, `unsupported ${EVIL}`);
  error(-32601, `no method ${EVIL}`);
}

let agent: { url: string; close(): Promise<void> };
let card: Record<string, unknown>;

function serve(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (req.method === 'GET') return json(res, card);
  if (req.url === '/token') return json(res, { error: `denied ${EVIL}` }, 400);
  rpc(res, JSON.parse(body) as Parameters<typeof rpc>[1]);
}

beforeAll(async () => {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => serve(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = { url, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
  card = {
    name: `Agent ${EVIL}`,
    description: `desc ${EVIL}`,
    version: '1',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${url}/other`, protocolBinding: `CUSTOM ${EVIL}`, protocolVersion: `9 ${EVIL}` },
    ],
    capabilities: { streaming: true },
    skills: [{ id: `s ${EVIL}`, name: `skill ${EVIL}`, description: `does ${EVIL}`, tags: [`tag ${EVIL}`], examples: [`try ${EVIL}`] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  };
});
afterAll(() => agent?.close());

async function check(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runInspect(['--check', ...argv], { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env: {} });
  return { code, out, err };
}

describe('taskwire inspect --check against a hostile agent', () => {
  it('prints its card, answers and error messages without a control character (newline and tab aside)', async () => {
    const { code, out, err } = await check(agent.url);
    expect(out + err).not.toMatch(CONTROL);
    expect(out).toContain(`Checking Agent ${SHOWN} over JSONRPC 1.0`);
    expect(out).toContain(`unknown binding "CUSTOM ${SHOWN}"`);
    expect(out).toContain(`protocol version "9 ${SHOWN}"`);
    expect(out).toContain(`GetTask task ${SHOWN} failed: TaskNotFound (-32001): no task ${SHOWN}`);
    expect(out).toContain(`CancelTask failed: TaskNotCancelable (-32002): not cancelable ${SHOWN}`);
    expect(code).toBe(1);
  }, 60_000);

  it("strips the token endpoint's error on stderr", async () => {
    const { code, out, err } = await check(agent.url, '--token-url', `${agent.url}/token`, '--client-id', 'me', '--client-secret', 's');
    expect(out + err).not.toMatch(CONTROL);
    expect(err).toContain(`HTTP 400, denied ${SHOWN}`);
    expect(code).toBe(1);
  }, 60_000);

  it('--json keeps the exact values, with no raw control character', async () => {
    const { code, out, err } = await check(agent.url, '--json');
    expect(out + err).not.toMatch(CONTROL);
    const report = JSON.parse(out) as { probes: { binding: string; declaredVersion: string }[]; checks: { id: string; evidence: string[] }[] };
    expect(report.probes.map((p) => [p.binding, p.declaredVersion])).toEqual([
      ['JSONRPC', '1.0'],
      [`CUSTOM ${EVIL}`, `9 ${EVIL}`],
    ]);
    const evidence = report.checks.flatMap((c) => c.evidence);
    expect(evidence).toContain(`GetTask ${TASK_ID} failed: TaskNotFound (-32001): no task ${EVIL}`);
    expect(code).toBe(1);
  }, 60_000);
});
