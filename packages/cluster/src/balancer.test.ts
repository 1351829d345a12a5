import type { Message, StreamEvent, Task, Transport } from '@taskwire/core';
import { isTerminal, stateOf, WS_PROTOCOL_BINDING } from '@taskwire/core';
import type { StreamDrop } from '@taskwire/client';
import { createClient } from '@taskwire/client';
import { describePostgres } from '@taskwire/postgres/testing';
import type { AgentUrls } from '@taskwire/reliability/support/agent-process';
import type { Binding, ClosableTransport } from '@taskwire/reliability/support/transports';
import { BINDINGS, connectTransport } from '@taskwire/reliability/support/transports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedLogProblems } from './support/logs.js';
import type { Balancer, ReservedPorts } from './support/nginx.js';
import { reservePorts, startNginx } from './support/nginx.js';
import { perCall } from './support/per-call.js';
import { withTenant } from './support/round-robin.js';
import { useCluster } from './support/use-cluster.js';

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

async function send(client: Transport, text: string, extra: Partial<Message> = {}, returnImmediately = false): Promise<Task> {
  const result = await client.unary('SendMessage', { message: message(text, extra), configuration: { returnImmediately } });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/**
 * Sequences that follow each other with no gap and no repeat, except that
 * the task itself may skip ahead (a task taken over from a replica that is
 * gone is settled after a gap, the task logged first: see
 * `TAKE_OVER_SEQUENCE_GAP`).
 */
const contiguous = (events: readonly StreamEvent[]) =>
  events.every((e, i) => i === 0 || e.sequence === events[i - 1]!.sequence + 1 || ('task' in e.response && e.sequence > events[i - 1]!.sequence));

/** Short, so that the task of a replica killed outright is settled soon (within the lease, plus a sweep). */
const LEASE_TTL_MS = 3_000;

describePostgres('3 replicas behind nginx (round-robin, no sticky sessions): one URL, every behaviour', (db) => {
  // nginx's ports are known before the replicas start, so that they can be told where clients reach them.
  let ports: ReservedPorts;
  beforeAll(async () => void (ports = await reservePorts()));
  // The card of every replica points at nginx: from nginx's X-Forwarded-* headers (the README block sets
  // them) when the card is asked for through nginx, else at --public-url (nginx by another name: localhost).
  const cluster = useCluster(db, 3, () => [
    '--lease-ttl-ms',
    String(LEASE_TTL_MS),
    '--trust-proxy',
    '--public-url',
    `http://localhost:${ports.http}`,
    '--public-grpc-url',
    ports.grpcUrl,
  ]);
  let balancer: Balancer;
  const opened: ClosableTransport[] = [];
  beforeAll(async () => {
    const replicas = cluster().replicas;
    balancer = await startNginx({ http: replicas.map((r) => r.port), grpc: replicas.map((r) => r.grpcPort) }, ports);
  }, 300_000);
  afterAll(async () => {
    await Promise.all(opened.map((t) => t.close()));
    await balancer?.close();
    // Whatever happened on whichever replica, every task's log is one lifecycle with nothing after its end.
    expect(await storedLogProblems(db.url, cluster().schema)).toEqual([]);
  });

  /** The balancer's URLs: one for HTTP (JSON-RPC, HTTP+JSON, SSE, WebSocket), one for gRPC. */
  const via = (): AgentUrls => ({
    jsonRpc: `${balancer.url}/a2a/jsonrpc`,
    rest: `${balancer.url}/a2a/rest`,
    ws: `${balancer.url.replace(/^http/, 'ws')}/a2a/ws`,
    grpc: balancer.grpcUrl,
    card: `${balancer.url}/.well-known/agent-card.json`,
  });
  /**
   * A client of `binding` through the balancer, under a tenant of its own. A
   * WebSocket connection stays on one replica, so it connects anew per call.
   */
  const client = (binding: Binding): Transport => {
    const tenant = `lb-${crypto.randomUUID()}`;
    if (binding === 'WebSocket') return withTenant(perCall(() => connectTransport(binding, via())), tenant);
    const transport = connectTransport(binding, via());
    opened.push(transport);
    return withTenant(transport, tenant);
  };

  for (const binding of BINDINGS) {
    describe(`over ${binding}`, () => {
      it('1. read anywhere: a task made on one replica is at once visible to GetTask and ListTasks on every replica', async () => {
        const c = client(binding);
        const task = await send(c, 'echo visible everywhere');
        for (let i = 0; i < 6; i++) expect(await c.unary('GetTask', { id: task.id })).toEqual(task);
        for (let i = 0; i < 3; i++) expect((await c.unary('ListTasks', {})).tasks.map((t) => t.id)).toEqual([task.id]);
      }, 60_000);

      it('2. continue anywhere: the answer to an input-required task runs its agent on whichever replica it lands', async () => {
        const c = client(binding);
        const asked = await send(c, 'a sunset quote please');
        expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
        const done = await send(c, 'insta', { taskId: asked.id });
        expect(done.id).toBe(asked.id);
        expect(done.status.state).toBe('TASK_STATE_COMPLETED');
        expect(done.artifacts?.[0]?.name).toBe('quote');
      }, 60_000);

      it('3. follow anywhere: a subscriber on another replica gets the snapshot then every event once, in order, to the end; a resume by sequence works on any replica', async () => {
        const c = client(binding);
        const task = await send(c, 'slow 10 20', {}, true);
        const events = await collect(c.stream('SubscribeToTask', { id: task.id }));
        expect('task' in events[0]!.response).toBe(true);
        expect(contiguous(events)).toBe(true);
        expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
        const chunks = events.filter((e) => 'artifactUpdate' in e.response);
        const done = await c.unary('GetTask', { id: task.id });
        expect(done.artifacts?.[0]?.parts.length).toBe(10);
        expect(chunks.length).toBeLessThanOrEqual(10);
        const cut = events[Math.floor(events.length / 2)]!.sequence;
        const resumed = await collect(c.stream('SubscribeToTask', { id: task.id, afterSequence: cut }));
        expect(resumed).toEqual(events.filter((e) => e.sequence > cut));
      }, 60_000);

      it("4. cancel anywhere: a cancel on another replica ends the task canceled for every subscriber, and it stays canceled", async () => {
        const c = client(binding);
        const task = await send(c, 'slow 1000 5', {}, true);
        const stream = c.stream('SubscribeToTask', { id: task.id })[Symbol.asyncIterator]();
        const first = await stream.next();
        expect(first.done).toBe(false);
        const canceled = await c.unary('CancelTask', { id: task.id });
        expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
        const rest: StreamEvent[] = [];
        for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
        expect(stateOf(rest.at(-1)!.response)).toBe('TASK_STATE_CANCELED');
        for (let i = 0; i < 3; i++) expect((await c.unary('GetTask', { id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
        expect(await c.unary('CancelTask', { id: task.id })).toEqual(canceled);
      }, 60_000);
    });
  }
  describe('the card', () => {
    /** The card's interfaces, `binding url` each. */
    const interfaces = async (cardUrl: string) =>
      ((await (await fetch(cardUrl)).json()) as { supportedInterfaces: { protocolBinding: string; url: string }[] }).supportedInterfaces.map(
        (i) => `${i.protocolBinding} ${i.url}`,
      );
    const at = (base: string) => [
      `JSONRPC ${base}/a2a/jsonrpc`,
      `HTTP+JSON ${base}/a2a/rest`,
      `GRPC ${balancer.grpcUrl}`,
      `${WS_PROTOCOL_BINDING} ${base.replace(/^http/, 'ws')}/a2a/ws`,
    ];

    it("points every interface at nginx, whether read through nginx (its X-Forwarded-* headers) or from a replica itself (--public-url)", async () => {
      for (let i = 0; i < 3; i++) expect(await interfaces(`${balancer.url}/.well-known/agent-card.json`)).toEqual(at(balancer.url));
      for (const replica of cluster().replicas) expect(await interfaces(replica.urls.card)).toEqual(at(`http://localhost:${ports.http}`));
      // v0.3 clients (@a2a-js/sdk) read `url`: nginx's JSON-RPC endpoint too.
      const card = await (await fetch(`${balancer.url}/.well-known/agent-card.json`)).json();
      expect(card.url).toBe(`${balancer.url}/a2a/jsonrpc`);
    }, 60_000);

    it('a client that reads it talks to nginx, and its stream survives the kill -9 of the replica serving it: every event once, in order, to the end', async () => {
      // Which replica served each HTTP answer (nginx's X-Served-By, the tests' addition to the README block).
      const servedBy: number[] = [];
      const tracking: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const upstream = response.headers.get('x-served-by')?.split(',').at(-1)?.trim();
        servedBy.push(cluster().replicas.findIndex((r) => upstream === `127.0.0.1:${r.port}`));
        return response;
      };
      const drops: StreamDrop[] = [];
      const client = await createClient(balancer.url, {
        fetch: tracking,
        resume: { onDrop: (drop) => drops.push(drop) },
      });
      expect(client.interface?.url).toBe(`${balancer.url}/a2a/jsonrpc`);
      servedBy.length = 0;
      const stream = client.sendStreamingMessage({ message: message('slow 100 50') })[Symbol.asyncIterator]();
      const events: StreamEvent[] = [];
      while (events.filter((e) => 'artifactUpdate' in e.response).length < 3) {
        const next = await stream.next();
        if (next.done) throw new Error('the stream ended before the kill');
        events.push(next.value);
      }
      // The replica that took the streaming call runs the agent and serves the stream: kill it outright.
      const victim = servedBy[0]!;
      expect(victim).toBeGreaterThanOrEqual(0);
      await cluster().kill(victim);
      try {
        // Another replica settles the task once the victim's lease is over; the client resumes through nginx
        // meanwhile. No bound here but the test's timeout: the settle takes about a lease plus a sweep.
        for (let next = await stream.next(); !next.done; next = await stream.next()) events.push(next.value);
        expect(drops.length).toBeGreaterThanOrEqual(1);
        expect(servedBy.slice(1).length).toBeGreaterThanOrEqual(1);
        expect(servedBy.slice(1).every((index) => index >= 0 && index !== victim)).toBe(true);
        expect('task' in events[0]!.response).toBe(true);
        expect(contiguous(events)).toBe(true);
        const last = stateOf(events.at(-1)!.response)!;
        expect(isTerminal(last)).toBe(true);
        const task = await client.getTask({ id: (events[0]!.response as { task: Task }).task.id });
        expect(task.status.state).toBe(last);
        // The chunks seen are the task's chunks, each once: the artifact holds as many parts as chunk events came.
        expect(task.artifacts?.[0]?.parts.length ?? 0).toBe(events.filter((e) => 'artifactUpdate' in e.response).length);
      } finally {
        await cluster().restart(victim);
      }
    }, 120_000);
  });
});
