import type { Message, StreamEvent, Task, Transport } from '@taskwire/core';
import { stateOf } from '@taskwire/core';
import { describePostgres, PgBouncer } from '@taskwire/postgres/testing';
import { spawnAgent } from '@taskwire/reliability/support/agent-process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cluster } from './support/cluster.js';
import { storedLogProblems } from './support/logs.js';
import { roundRobin, withTenant } from './support/round-robin.js';

const message = (text: string, extra: Partial<Message> = {}): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra });

async function send(client: Transport, text: string, returnImmediately = false): Promise<Task> {
  const result = await client.unary('SendMessage', { message: message(text), configuration: { returnImmediately } });
  if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result.task;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describePostgres('2 reference-agent processes through PgBouncer in transaction mode (--store the pooler, --direct-store the database)', (db) => {
  const schema = `tw_pooled_cluster_${process.pid}_${Date.now()}`;
  /** A name per replica (each is a one-process cluster, so that each gets its own `--replica-name`). */
  const names = ['a', 'b'].map((n) => `pooled-${n}-${crypto.randomUUID().slice(0, 8)}`);
  let bouncer: PgBouncer;
  let replicas: Cluster[] = [];
  beforeAll(async () => {
    bouncer = await PgBouncer.start(db.url);
    // Both replicas start at once with --migrate: the migrations take turns on a lock of the direct connection.
    replicas = await Promise.all(
      names.map((name) => Cluster.start({ size: 1, databaseUrl: bouncer.url, schema, args: ['--direct-store', db.url, '--replica-name', name] })),
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await bouncer?.stop();
    expect(await storedLogProblems(db.url, schema)).toEqual([]);
    await db.drop(schema);
  });
  /** A JSON-RPC client whose calls alternate between the two replicas, under a tenant of its own. */
  const client = () => withTenant(roundRobin(replicas.map((r) => r.transport('JSON-RPC', 0))), `pooled-${crypto.randomUUID()}`);

  it('400 concurrent echoes over both replicas all complete, and every replica reads every task', async () => {
    const c = client();
    const tasks = await Promise.all(Array.from({ length: 400 }, (_, i) => send(c, `echo ${i}`)));
    expect(tasks.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const reads = await Promise.all(tasks.slice(0, 50).map((t) => c.unary('GetTask', { id: t.id })));
    expect(reads.map((t) => t.id)).toEqual(tasks.slice(0, 50).map((t) => t.id));
  }, 120_000);

  it('streams: a task running on one replica is followed on the other to its end, every event once and in order', async () => {
    const [a, b] = replicas.map((r) => withTenant(r.transport('JSON-RPC', 0), 'pooled-stream'));
    const own = await collect(a!.stream('SendStreamingMessage', { message: message('slow 5 20') }));
    expect(stateOf(own.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
    const task = await send(a!, 'slow 10 50', true);
    const events = await collect(b!.stream('SubscribeToTask', { id: task.id }));
    expect('task' in events[0]!.response).toBe(true);
    expect(events.every((e, i) => i === 0 || e.sequence === events[i - 1]!.sequence + 1)).toBe(true);
    expect(stateOf(events.at(-1)!.response)).toBe('TASK_STATE_COMPLETED');
  }, 60_000);

  it('a replica given the pooler without --direct-store fails to start with a line naming --direct-store', async () => {
    const alone = spawnAgent({ store: { url: bouncer.url }, args: ['--migrate', '--schema', `${schema}_alone`] });
    try {
      await expect(alone.ready).rejects.toThrow(/\nThe store URL seems to lead to a transaction-mode pooler \(PgBouncer\): give PostgreSQL's own URL as well, with --direct-store <url>\./);
    } finally {
      await alone.kill();
    }
  }, 60_000);

  it('each replica listens and holds its name lock on a direct session; its requests and cluster work go through the pooler, named with its id', async () => {
    // A call to each replica, so its request pool has a connection open now (idle ones close after 30 s).
    await Promise.all(replicas.map((r) => withTenant(r.transport('JSON-RPC', 0), 'pooled-names').unary('ListTasks', {})));
    const through = await bouncer.clients();
    for (const name of names) {
      expect(through.some((n) => n.startsWith('taskwire listener') && n.endsWith(name))).toBe(false);
      expect(through.some((n) => n.startsWith('taskwire cluster') && n.endsWith(name))).toBe(true);
      expect(through.some((n) => /^taskwire [0-9a-f]{16} /.test(n) && n.endsWith(name))).toBe(true);
    }
    for (const name of names) {
      const { rows } = await db.pool.query<{ name: string; locks: number }>(
        `SELECT a.application_name AS name, (SELECT count(*)::int FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted) AS locks
           FROM pg_stat_activity a WHERE a.application_name LIKE $1`,
        [`taskwire listener % ${name}`],
      );
      expect(rows.map((r) => r.locks)).toEqual([1]);
    }
  });
});
