import { describe, expect, it } from 'vitest';
import { SEQUENCE_HEADER } from './webhook-attempt.js';
import type { HostLookup } from './webhook-guard.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { eventsAfter, message, sequenceOf, startTask, useWebhookRigs } from './webhook-test-rig.js';

const { rig, onCleanup } = useWebhookRigs();

describe('webhook delivery', () => {
  it('delivers every event in order, through failed and timed-out attempts, with exactly the configured headers', async () => {
    const plan = new Map<number, number | 'hang'>([[0, 503], [1, 503], [3, 'hang'], [6, 500], [9, 'hang'], [12, 502]]);
    const r = await rig((_, index) => plan.get(index) ?? 204, { timeoutMs: 250 });
    const taskId = await startTask(r, { id: 'a', url: `${r.receiver.url}/a`, authentication: { scheme: 'Bearer', credentials: 'secret-a' } });
    const b = await r.client.unary('CreateTaskPushNotificationConfig', {
      taskId,
      id: 'b',
      url: `${r.receiver.url}/b`,
      token: 'token-b',
      authentication: { scheme: 'Basic', credentials: 'dXNlcjpwYXNz' },
    });
    const bStartsAfter = (await r.tasks.get(taskId))!.lastSequence;
    await r.client.unary('SendMessage', { message: message('steps 4', { taskId }) });
    await r.service.idle();
    await r.delivery.idle();

    const forPath = (path: string) => r.receiver.accepted().filter((n) => n.path === path);
    expect(forPath('/a').map((n) => n.body)).toEqual(await eventsAfter(r.tasks, taskId, 0));
    expect(forPath('/b').map((n) => n.body)).toEqual(await eventsAfter(r.tasks, taskId, bStartsAfter));
    expect(forPath('/a').map(sequenceOf)).toEqual(forPath('/a').map((_, i) => i + 1));
    expect(forPath('/a').at(-1)?.body).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
    for (const n of r.receiver.received) {
      expect(n.headers['content-type']).toBe('application/a2a+json');
      if (n.path === '/a') {
        expect(n.headers.authorization).toBe('Bearer secret-a');
        expect(n.headers['x-a2a-notification-token']).toBeUndefined();
      } else {
        expect(n.headers.authorization).toBe(`Basic ${b.authentication!.credentials}`);
        expect(n.headers['x-a2a-notification-token']).toBe('token-b');
      }
    }
    // Six requests failed or hung; each was retried after a backoff wait.
    expect(r.receiver.received.length).toBe(r.receiver.accepted().length + 6);
    expect(r.delivery.stats()).toMatchObject({ failures: 6, deadLetters: 0, delivered: r.receiver.accepted().length });
    expect(r.waits.length).toBe(6);
    expect(await r.delivery.listDeadLetters()).toEqual([]);
    expect((await r.configs.get(taskId, 'a'))?.delivered).toBe((await r.tasks.get(taskId))!.lastSequence);
  });

  it('waits with exponential backoff and full jitter, gives up after maxAttempts into a dead letter, then sends the next event', async () => {
    const randoms = [0.9, 0.1, 0.5, 0.99];
    const r = await rig((n) => (n.headers[SEQUENCE_HEADER] === '1' ? 503 : 200), {
      retry: { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 300 },
      random: () => randoms.shift() ?? 0,
    });
    const taskId = await startTask(r, { id: 'a', url: `${r.receiver.url}/a` });
    await r.delivery.idle();
    // Caps: 100, 200, 300 (max), 300; each wait is a uniform fraction of its cap.
    expect(r.waits).toEqual([90, 20, 150, 297]);
    const letters = await r.delivery.listDeadLetters();
    expect(letters).toEqual([
      expect.objectContaining({ taskId, configId: 'a', sequence: 1, attempts: 5, error: 'the webhook answered HTTP 503', url: `${r.receiver.url}/a` }),
    ]);
    expect(letters[0]!.event).toEqual((await eventsAfter(r.tasks, taskId, 0))[0]);
    expect(r.receiver.accepted().map(sequenceOf)).toEqual([2]);
    expect(r.receiver.received.filter((n) => sequenceOf(n) === 1)).toHaveLength(5);
  });

  it("honours a receiver's Retry-After as the least wait", async () => {
    const r = await rig((_, index) => (index === 0 ? { status: 429, headers: { 'retry-after': '2' } } : 200), { random: () => 0 });
    await startTask(r, { url: `${r.receiver.url}/a` });
    await r.delivery.idle();
    expect(r.waits).toEqual([2000]);
    expect(r.receiver.accepted().map(sequenceOf)).toEqual([1, 2]);
  });

  it('checks the URL again before each attempt: a name that now resolves to a private address is refused (DNS rebinding)', async () => {
    let calls = 0;
    const lookup: HostLookup = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '10.0.0.1', family: 4 }];
    const r = await rig(undefined, { lookup, allow: [] });
    const taskId = await startTask(r, { id: 'a', url: 'https://hooks.rebind.example/a2a' });
    await r.delivery.idle();
    const letters = await r.delivery.listDeadLetters({ taskId });
    expect(letters.map((l) => [l.sequence, l.attempts])).toEqual([[1, 1], [2, 1]]);
    expect(letters[0]!.error).toMatch(/^refused before sending: the webhook host hooks\.rebind\.example resolves to 10\.0\.0\.1, which is a private address/);
    expect(r.waits).toEqual([]);
    expect(r.receiver.received).toEqual([]);
  });

  it('does not follow redirects', async () => {
    const other = await startWebhookReceiver();
    onCleanup(() => other.close());
    const r = await rig(() => ({ status: 307, headers: { location: `${other.url}/elsewhere` } }), { retry: { maxAttempts: 2 } });
    await startTask(r, { url: `${r.receiver.url}/hook` });
    await r.delivery.idle();
    expect(r.receiver.received.length).toBe(4);
    expect(other.received).toEqual([]);
    const letters = await r.delivery.listDeadLetters();
    expect(letters.map((l) => l.error)).toEqual(Array(2).fill('the webhook answered HTTP 307 (redirects are not followed: configure the final URL)'));
  });

  it('sends nothing more to a config once it is deleted', async () => {
    let deleted: Promise<unknown> | undefined;
    let requestsWhenDeleted = 0;
    const r = await rig(undefined, { retry: { maxAttempts: 1000, initialDelayMs: 0 } });
    r.receiver.respond = (request, index) => {
      if (index === 2) {
        const taskId = 'task' in request.body ? request.body.task.id : '';
        deleted = r.client
          .unary('DeleteTaskPushNotificationConfig', { taskId, id: 'a' })
          .then(() => (requestsWhenDeleted = r.receiver.received.length));
      }
      return 503;
    };
    await startTask(r, { id: 'a', url: `${r.receiver.url}/a` });
    await r.delivery.idle();
    await deleted;
    expect(requestsWhenDeleted).toBeGreaterThan(0);
    // At most the attempt already under way when the delete landed.
    expect(r.receiver.received.length).toBeLessThanOrEqual(requestsWhenDeleted + 1);
    expect(await r.delivery.listDeadLetters()).toEqual([]);
  });

  it('keeps the tasks of different configs independent: a failing webhook does not hold up another', async () => {
    const r = await rig((n) => (n.path === '/down' ? 503 : 200), { retry: { maxAttempts: 3 } });
    const down = await startTask(r, { id: 'x', url: `${r.receiver.url}/down` });
    const up = await startTask(r, { id: 'y', url: `${r.receiver.url}/up` });
    await r.client.unary('SendMessage', { message: message('steps 2', { taskId: up }) });
    await r.delivery.idle();
    expect(r.receiver.accepted().map((n) => n.body)).toEqual(await eventsAfter(r.tasks, up, 0));
    expect((await r.delivery.listDeadLetters({ taskId: down })).map((l) => l.sequence)).toEqual([1, 2]);
  });
});
