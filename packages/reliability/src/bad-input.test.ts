import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureTasks } from './hostile/fixtures.js';
import { API_KEY, createFixtures, snapshot } from './hostile/fixtures.js';
import { grpcCorpus } from './hostile/grpc-corpus.js';
import type { CorpusReport, HostileCase } from './hostile/hostile-case.js';
import { runCorpus } from './hostile/hostile-case.js';
import { HttpTarget } from './hostile/http-exchange.js';
import { jsonRpcCorpus } from './hostile/json-rpc-corpus.js';
import { restCorpus } from './hostile/rest-corpus.js';
import { wsCorpus } from './hostile/ws-corpus.js';
import type { AgentProcess, AgentUrls, HeapSample } from './support/agent-process.js';
import { spawnAgent } from './support/agent-process.js';
import { Random, suiteSeed } from './support/random.js';
import type { Binding } from './support/transports.js';
import { BINDINGS, connectTransport } from './support/transports.js';

const CASES_PER_TRANSPORT = 600;
const WARM_UP_CASES = 600;
const PARALLEL = 8;
const SEED = suiteSeed(9_001);
/**
 * How much the server's heap (after full GCs) may stay above its baseline
 * once the whole corpus has been answered. The memory store holds the same
 * six tasks before and after; what remains is V8's own settling (compiled
 * code, inline caches, pooled buffers): measured over six passes of 2,400
 * requests it wandered within 1 MiB without a trend. A leak of even 1 KiB
 * per request would keep more than 2 MiB after 2,400 requests.
 */
const HEAP_SLACK_BYTES = 2 * 1024 * 1024;

type Corpus = { cases: HostileCase[]; close(): void };

/** The corpus of one binding, against the server at `urls`. */
async function corpusOf(binding: Binding, urls: AgentUrls, http: HttpTarget, fixtures: FixtureTasks, random: Random, count: number): Promise<Corpus> {
  switch (binding) {
    case 'JSON-RPC':
      return { cases: jsonRpcCorpus(http, fixtures, random, count), close: () => undefined };
    case 'HTTP+JSON':
      return { cases: restCorpus(http, fixtures, random, count), close: () => undefined };
    case 'gRPC':
      return grpcCorpus(urls.grpc, fixtures, random, count);
    default:
      return wsCorpus(urls.ws, fixtures, random, count);
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

describe('bad input: malformed and hostile requests on every transport of the reference agent (memory store, API key)', () => {
  let agent: AgentProcess;
  let urls: AgentUrls;
  let fixtures: FixtureTasks;
  let before: string;
  let baseline: HeapSample;
  const reports = new Map<Binding, CorpusReport>();

  /** Runs one binding's corpus with a fresh HTTP pool, closing every connection it opened. */
  const run = async (binding: Binding, random: Random, count: number): Promise<CorpusReport> => {
    const http = new HttpTarget(urls.jsonRpc);
    const corpus = await corpusOf(binding, urls, http, fixtures, random, count);
    try {
      return await runCorpus(corpus.cases, PARALLEL);
    } finally {
      corpus.close();
      http.close();
    }
  };

  beforeAll(async () => {
    agent = spawnAgent({ store: 'memory', apiKey: API_KEY, probe: true });
    urls = await agent.ready;
    const http = new HttpTarget(urls.jsonRpc);
    fixtures = await createFixtures(http);
    before = await snapshot(http);
    http.close();
    // A first pass (another seed) warms the server up: lazily compiled code and filled caches are not leaks.
    const warmUp = new Random(SEED + 1);
    for (const binding of BINDINGS) await run(binding, warmUp.fork(), WARM_UP_CASES);
    baseline = await agent.heap();
  }, 120_000);

  afterAll(async () => {
    await agent?.kill();
  });

  it.each(BINDINGS)(`%s: at least ${CASES_PER_TRANSPORT - 100} hostile requests, each answered with the right error, and the server still serves`, async (binding) => {
    const report = await run(binding, new Random(SEED + binding.length * 7919), CASES_PER_TRANSPORT);
    reports.set(binding, report);
    expect(report.problems).toEqual([]);
    expect(report.cases).toBeGreaterThanOrEqual(500);
    expect(agent.child.exitCode, 'the server process is alive').toBeNull();
    const client = connectTransport(binding, urls, { 'x-api-key': API_KEY });
    try {
      const task = await client.unary('GetTask', { id: fixtures.completed.id });
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await client.close();
    }
  }, 120_000);

  it('changed no stored task, logged no unexpected failure, and went back to its baseline memory', async () => {
    const http = new HttpTarget(urls.jsonRpc);
    const after = await snapshot(http);
    http.close();
    expect(after, 'the stored tasks are exactly as before the corpus').toBe(before);
    const heap = await agent.heap();
    expect(heap.collected, 'the server runs with --expose-gc').toBe(true);
    const unexpected = agent.stderr().split('\n').filter((line) => line.startsWith('error:'));
    expect(unexpected, 'no request made the server report an unexpected failure').toEqual([]);
    const total = [...reports.values()].reduce((sum, r) => sum + r.cases, 0);
    const categories = new Map<string, number>();
    for (const report of reports.values()) for (const [name, n] of Object.entries(report.byCategory)) categories.set(name, (categories.get(name) ?? 0) + n);
    console.log(
      `bad input (seed ${SEED}): ${total} hostile requests (${[...reports].map(([b, r]) => `${b} ${r.cases}`).join(', ')}), all answered with the expected error; ` +
        `categories: ${[...categories].map(([c, n]) => `${c} ${n}`).join(', ')}; stored tasks unchanged; server heap ${mib(baseline.heapUsed)} before, ` +
        `${mib(heap.heapUsed)} after (${mib(heap.heapUsed - baseline.heapUsed)}; bound ${mib(HEAP_SLACK_BYTES)}), external ${mib(baseline.external)} -> ${mib(heap.external)}`,
    );
    expect(heap.heapUsed - baseline.heapUsed).toBeLessThan(HEAP_SLACK_BYTES);
    expect(heap.external - baseline.external).toBeLessThan(HEAP_SLACK_BYTES);
  }, 60_000);
});
