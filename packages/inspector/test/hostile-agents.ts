// Hostile agents for the fuzz test: one node:http server on 127.0.0.1 serves
// every case under its own path prefix (`/<case>/card.json`, `/<case>/rpc`).
// The cases are generated from a fixed seed, so every run serves the same ones.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a hostile endpoint answers: a JSON value, or one of the broken replies. */
export type Reply = { json: unknown } | { raw: 'not-json' | 'html-500' | 'hang' | 'sse-garbage' };

/** One hostile agent: its card (or a broken card reply), its JSON-RPC answers, and what `--check` must name. */
export interface HostileCase {
  readonly name: string;
  /** The card served, built from the agent's base URL; or a broken reply; or `redirect-loop`. */
  readonly card: ((base: string) => unknown) | { raw: 'not-json' | 'html-500' | 'hang' | 'redirect-loop' };
  /** The `result` of every unary call (a Task when the agent behaved). */
  readonly unary: Reply;
  /** The `result` of each event of a stream, or a broken reply. */
  readonly stream: { events: readonly unknown[] } | Reply;
  /** What the output must contain: the named problem. */
  readonly expected: RegExp;
  /** A short time limit for `--timeout` (cases that hang). */
  readonly timeoutMs?: number;
}

/** A small seeded generator (mulberry32): the same numbers on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TASK = { id: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } };
const GOOD_STREAM = { events: [{ task: TASK }, { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } } }] };

/** A valid v1.0 card whose one interface is the case's JSON-RPC endpoint. */
export const validCard = (base: string): Record<string, unknown> => ({
  name: 'Hostile',
  description: 'an agent that answers badly',
  version: '1',
  supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

const REQUIRED = ['name', 'description', 'version', 'supportedInterfaces', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'] as const;
const WRONG: readonly [string, unknown][] = [
  ['null', null],
  ['a number', 42],
  ['a boolean', true],
  ['an array', [1, 'two']],
  ['an object', { nested: { deeper: [] } }],
];

/** An escaped regular expression of `text`. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Card cases: each required field missing, then `count` seeded wrong-typed fields, then broken wholes. */
function cardCases(random: () => number, count: number): HostileCase[] {
  const answering = { unary: { json: TASK }, stream: GOOD_STREAM };
  const cases: HostileCase[] = REQUIRED.map((field) => ({
    name: `card without "${field}"`,
    card: (base: string) => {
      const card = validCard(base);
      delete card[field];
      return card;
    },
    ...answering,
    expected: new RegExp(`error ${field} \\[.*${literal(`"${field}"`)}`),
  }));
  for (let i = 0; i < count; i++) {
    const field = REQUIRED[Math.floor(random() * REQUIRED.length)]!;
    const [what, value] = WRONG[Math.floor(random() * WRONG.length)]!;
    cases.push({ name: `card whose "${field}" is ${what}`, card: (base) => ({ ...validCard(base), [field]: value }), ...answering, expected: new RegExp(`error ${field}\\b`) });
  }
  const huge = 'x'.repeat(2_000_000);
  cases.push(
    { name: 'card whose name is 2 MB and description a number', card: (base) => ({ ...validCard(base), name: huge, description: 7 }), ...answering, expected: /error description \[/ },
    { name: 'card with unknown extra fields and a nulled interface', card: (base) => ({ ...validCard(base), extra: { a: [null] }, supportedInterfaces: [null] }), ...answering, expected: /supportedInterfaces\[0\]/ },
    { name: 'card with an interface of wrong types', card: () => ({ ...validCard(''), supportedInterfaces: [{ url: 5, protocolBinding: null }] }), ...answering, expected: /supportedInterfaces\[0\]\.(url|protocolBinding)/ },
    { name: 'card that is null', card: () => null, ...answering, expected: /the card is not a JSON object|not JSON/ },
    { name: 'card that is an array', card: () => [validCard('')], ...answering, expected: /error \(card\)|supportedInterfaces/ },
    { name: 'card that is not JSON', card: { raw: 'not-json' }, ...answering, expected: /the card is not JSON \(text\/plain.*expected an AgentCard JSON object/ },
    { name: 'card answered with an HTML 500 page', card: { raw: 'html-500' }, ...answering, expected: /answered HTTP 500 \(text\/html.*expected 200 with the card as JSON/ },
    { name: 'card that never answers', card: { raw: 'hang' }, ...answering, expected: /no answer within the time limit/, timeoutMs: 800 },
    { name: 'card behind a redirect loop', card: { raw: 'redirect-loop' }, ...answering, expected: /one redirect too many/ },
  );
  return cases;
}

/** Wrong results for unary calls and stream events, seeded from the ways a Task can be wrong. */
const WRONG_RESULTS: readonly [string, unknown][] = [
  ['null', null],
  ['an empty object', {}],
  ['a string', 'done'],
  ['a Task without status', { id: 'task-1', contextId: 'ctx-1' }],
  ['a Task whose state is a number', { ...TASK, status: { state: 42 } }],
  ['a Task whose id is null', { ...TASK, id: null }],
  ['a Task whose status is an array', { ...TASK, status: [] }],
];

/** Answer cases: a valid card, and JSON-RPC answers of the wrong shape or no JSON at all. */
function answerCases(random: () => number, count: number): HostileCase[] {
  const cases: HostileCase[] = [];
  for (let i = 0; i < count; i++) {
    const [what, value] = WRONG_RESULTS[Math.floor(random() * WRONG_RESULTS.length)]!;
    cases.push({ name: `unary results that are ${what}`, card: validCard, unary: { json: value }, stream: GOOD_STREAM, expected: /GetTask answered .*expected a Task/ });
    const [eventWhat, event] = WRONG_RESULTS[Math.floor(random() * WRONG_RESULTS.length)]!;
    cases.push({ name: `stream events that are ${eventWhat}`, card: validCard, unary: { json: TASK }, stream: { events: [event] }, expected: /stream failed: SendStreamingMessage sent the event .*, expected one of task, message, statusUpdate, artifactUpdate: / });
  }
  cases.push(
    { name: 'stream events that are a task without status', card: validCard, unary: { json: TASK }, stream: { events: [{ task: { id: 'task-1' } }] }, expected: /SendStreamingMessage sent the event \{"task":\{"id":"task-1"\}\}, expected one of task, message, statusUpdate, artifactUpdate: task\.status: expected an object, got nothing/ },
    { name: 'answers that are not JSON', card: validCard, unary: { raw: 'not-json' }, stream: { raw: 'not-json' }, expected: /stream failed: Internal \(-32603\): The agent at \S+ answered HTTP 200 with a body that is not JSON: OK, done \{not json/ },
    { name: 'answers that are HTML 500 pages', card: validCard, unary: { raw: 'html-500' }, stream: { raw: 'html-500' }, expected: /stream failed: Internal \(-32603\): The agent at \S+ answered HTTP 500 with a body that is not JSON: <!doctype html>/ },
    { name: 'a stream of garbage events', card: validCard, unary: { json: TASK }, stream: { raw: 'sse-garbage' }, expected: /stream failed: / },
    { name: 'answers that never come', card: validCard, unary: { raw: 'hang' }, stream: { raw: 'hang' }, expected: /stream failed: /, timeoutMs: 800 },
  );
  return cases;
}

/** Every case, generated from `seed` (the same cases for the same seed). */
export function hostileCases(seed: number): HostileCase[] {
  const random = seeded(seed);
  return [...cardCases(random, 4), ...answerCases(random, 3)];
}

function reply(res: ServerResponse, answer: Reply, id: unknown, stream: boolean): void {
  if ('json' in answer) {
    const body = JSON.stringify({ jsonrpc: '2.0', id, result: answer.json });
    if (stream) res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`id: 1\ndata: ${body}\n\n`);
    else res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    return;
  }
  if (answer.raw === 'hang') return; // never answers; the client's time limit ends it
  if (answer.raw === 'not-json') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('OK, done {not json');
  if (answer.raw === 'sse-garbage') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {{{ not json\n\ndata: [1,2\n\n');
  res.writeHead(500, { 'content-type': 'text/html' }).end('<!doctype html><html><body><h1>500 Internal Server Error</h1><p>nginx</p></body></html>');
}

function serveCase(c: HostileCase, base: string, rest: string, req: IncomingMessage, res: ServerResponse, body: string): void {
  if (rest === '/card.json' || rest === '/loop') {
    if (typeof c.card === 'function') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(c.card(base)));
    if (c.card.raw === 'redirect-loop') return void res.writeHead(302, { location: rest === '/loop' ? `${base}/card.json` : `${base}/loop` }).end();
    return reply(res, c.card as Reply, null, false);
  }
  if (rest !== '/rpc' || req.method !== 'POST') return void res.writeHead(404).end();
  let call: { id?: unknown; method?: string } = {};
  try {
    call = JSON.parse(body) as typeof call;
  } catch {
    // a request the client would not send: answered as any other
  }
  const stream = call.method === 'SendStreamingMessage' || call.method === 'SubscribeToTask';
  if (!stream) return reply(res, c.unary, call.id, false);
  if (!('events' in c.stream)) return reply(res, c.stream, call.id, true);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(c.stream.events.map((result, i) => `id: ${i + 1}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result })}\n\n`).join(''));
}

/** Serves `cases` on 127.0.0.1; case `i` lives at `${url}/case-${i}`. */
export async function serveHostileCases(cases: readonly HostileCase[]): Promise<{ url: string; close(): Promise<void> }> {
  let url = '';
  const server = createServer((req, res) => {
    const match = /^\/case-(\d+)(\/[^?]*)/.exec(req.url ?? '');
    const c = match && cases[Number(match[1])];
    if (!match || !c) return void res.writeHead(404).end();
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => serveCase(c, `${url}/case-${match[1]}`, match[2]!, req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}
