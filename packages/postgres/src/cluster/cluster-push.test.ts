import type { Agent, AgentCard, Message, Task } from '@taskwire/core';
import { stateOf } from '@taskwire/core';
import { startWebhookReceiver, type WebhookReceiver } from '@taskwire/core/testing';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { describePostgres, type TestDatabase } from '../database-test-kit.js';
import { quoteSchema } from '../schema-name.js';
import { until } from './coordinator-test-kit.js';
import { openTestReplica, type TestReplica as Replica } from './replica-test-kit.js';

const card: AgentCard = {
  name: 'push replicas',
  description: 'test',
  supportedInterfaces: [],
  version: '1',
  capabilities: { streaming: true, pushNotifications: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const user = (text: string): Message => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

/** Steps the test allows the agent, one `open()` each. */
const gate = {
  allowed: 0,
  waiting: undefined as (() => void) | undefined,
  open(): void {
    this.allowed++;
    this.waiting?.();
  },
  /** Resolves true once a step is allowed, false once `signal` aborts (the task was canceled). */
  async pass(signal: AbortSignal): Promise<boolean> {
    while (this.allowed === 0 && !signal.aborted) {
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (signal.aborted) return false;
    this.allowed--;
    return true;
  },
};

/** `steps n`: n working updates, each once the test opens the gate, then completes. */
const agent: Agent = async (ctx) => {
  const n = Number(ctx.text.split(' ')[1]);
  for (let i = 0; i < n; i++) {
    if (!(await gate.pass(ctx.signal))) return;
    await ctx.working(`step ${i}`);
  }
  await ctx.complete('all steps');
};

describePostgres('push notifications from several replicas on one schema', (db: TestDatabase) => {
  let schema: string;
  let receiver: WebhookReceiver;
  let replicas: Replica[];

  const replica = () => openTestReplica(db, schema, { agent, card, push: { claimTtlMs: 600 } });
  const idle = () => Promise.all(replicas.map((r) => r.push!.delivery.idle()));
  /** The bodies a config's URL received and accepted, in arrival order. */
  const bodies = (path: string) => receiver.accepted().filter((n) => n.path === path).map((n) => n.body);
  const log = async (taskId: string) => (await replicas[0]!.store.readEvents(taskId, 0)).map((e) => e.event);

  beforeEach(async () => {
    schema = await db.schema('tw_push_replicas');
    receiver = await startWebhookReceiver();
    gate.allowed = 0;
    replicas = [await replica(), await replica()];
  });
  afterEach(async () => {
    for (const r of replicas) await r.close();
    await receiver.close();
    await db.drop(schema);
  });

  it('delivers each event of a task whose events are committed on both replicas exactly once per config, in order', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const sent = await a.service.unary('SendMessage', {
      message: user('steps 6'),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${receiver.url}/one` } },
    });
    const task = (sent as { task: Task }).task;
    await b.service.unary('CreateTaskPushNotificationConfig', { taskId: task.id, url: `${receiver.url}/two` });
    for (let i = 0; i < 3; i++) gate.open();
    while ((await a.store.get(task.id))!.lastSequence < 4) await new Promise((resolve) => setImmediate(resolve));
    // The cancel is committed on the other replica, which delivers it only if the config is not being delivered already.
    await b.service.unary('CancelTask', { id: task.id });
    const ended = (path: string) => bodies(path).some((body) => stateOf(body) === 'TASK_STATE_CANCELED');
    await receiver.waitFor(() => ended('/one') && ended('/two'));
    await idle();
    const events = await log(task.id);
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_CANCELED');
    expect(bodies('/one')).toEqual(events);
    // A config made later starts after the events the task had then: the rest of the log, each event once, in order.
    const two = bodies('/two');
    expect(two.length).toBeGreaterThan(0);
    expect(two).toEqual(events.slice(events.length - two.length));
  });

  it('takes a delivery over from a replica that stopped while holding its claim, from the cursor, once the claim expires', async () => {
    const [a] = replicas as [Replica, Replica];
    const sent = await a.service.unary('SendMessage', {
      message: user('steps 2'),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { id: 'c1', url: `${receiver.url}/one` } },
    });
    const task = (sent as { task: Task }).task;
    await receiver.waitFor(() => bodies('/one').length === 1);
    await idle();
    // As if a replica had claimed the config and died: its claim lasts 400 ms more; nobody may deliver meanwhile.
    await db.pool.query(`UPDATE ${quoteSchema(schema)}.push_configs SET claim_holder = 'gone', claim_expires_at = now() + interval '400 milliseconds' WHERE config_id = 'c1'`);
    gate.open();
    gate.open();
    await receiver.waitFor(() => bodies('/one').some((body) => stateOf(body) === 'TASK_STATE_COMPLETED'));
    await idle();
    expect(bodies('/one')).toEqual(await log(task.id));
  });

  it('delivers, from another replica within the claim\'s time to live, what a replica that stopped cleanly still owed', async () => {
    const [a, b] = replicas as [Replica, Replica];
    // The webhook fails for now: a keeps retrying the first notification, holding the claim.
    receiver.respond = () => 503;
    const sent = await a.service.unary('SendMessage', {
      message: user('steps 2'),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { id: 'c1', url: `${receiver.url}/one` } },
    });
    const task = (sent as { task: Task }).task;
    gate.open();
    gate.open();
    while (stateOf((await log(task.id)).at(-1)!) !== 'TASK_STATE_COMPLETED') await new Promise((resolve) => setTimeout(resolve, 5));
    await receiver.waitFor(() => receiver.received.length > 0);
    const claim = async () =>
      (await db.pool.query<{ holder: string | null; live: boolean }>(`SELECT claim_holder AS holder, claim_expires_at > now() AS live FROM ${quoteSchema(schema)}.push_configs WHERE config_id = 'c1'`)).rows[0]!;
    const held = await claim();
    expect(held.holder).not.toBeNull();
    expect(held.live).toBe(true);
    // a stops cleanly, its events undelivered; b has nothing to commit for this task, so only the sweep can find them.
    await a.close();
    // The clean stop handed a's claim over at once (expired now, or taken by b already): b need not wait out the time to live.
    const after = await claim();
    expect(after.holder !== held.holder || !after.live, JSON.stringify({ held, after })).toBe(true);
    replicas = [b];
    receiver.respond = () => 200;
    await receiver.waitFor(() => bodies('/one').some((body) => stateOf(body) === 'TASK_STATE_COMPLETED'));
    await idle();
    expect(bodies('/one')).toEqual(await log(task.id));
  });

  it('renews the claims a replica holds on its coordinator\'s own connections, one statement for all of them', async () => {
    const [a] = replicas as [Replica, Replica];
    const background = vi.spyOn(a.coordinator, 'backgroundQuery');
    receiver.respond = () => 503;
    for (const id of ['c1', 'c2']) {
      await a.service.unary('SendMessage', {
        message: user('steps 1'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { id, url: `${receiver.url}/${id}` } },
      });
    }
    const renewals = () => background.mock.calls.filter(([text]) => text.includes('unnest($2::text[], $3::text[])'));
    await receiver.waitFor(() => new Set(receiver.received.map((n) => n.path)).size === 2);
    const both = ([, values]: (typeof background.mock.calls)[number]) => (values as unknown[][])[2]?.length === 2;
    await until(() => renewals().some(both), 'one renewal of both claims on the coordinator\'s connections', 15_000);
    // One statement renewed both configs' claims, for this replica.
    const [, values] = renewals().find(both)!;
    expect([...(values as string[][])[2]!].sort()).toEqual(['c1', 'c2']);
    receiver.respond = () => 200;
    gate.open();
    gate.open();
  });
});
