import { describe, expect, it } from 'vitest';
import { testPushConfig } from './push-store-conformance.js';
import { eventsAfter, sequenceOf, startTask, useWebhookRigs } from './webhook-test-rig.js';

const { rig } = useWebhookRigs();

describe('redelivering dead letters', () => {
  it('sends the dead letters again once the webhook is fixed, removes them, and leaves the cursor where it was', async () => {
    let fixed = false;
    const r = await rig(() => (fixed ? 200 : 500), { retry: { maxAttempts: 2 } });
    const taskId = await startTask(r, { id: 'a', url: `${r.receiver.url}/a` });
    await r.delivery.idle();
    const { lastSequence } = (await r.tasks.get(taskId))!;
    const letters = await r.delivery.listDeadLetters();
    expect(letters.map((l) => l.sequence)).toEqual(Array.from({ length: lastSequence }, (_, i) => i + 1));
    expect(r.receiver.accepted()).toEqual([]);

    // Still broken: every letter fails again (with the usual retries) and stays as it was.
    const broken = await r.delivery.redeliver();
    expect(broken.delivered).toEqual([]);
    expect(broken.skipped).toEqual([]);
    expect(broken.failed).toEqual(letters.map((letter) => ({ letter, attempts: 2, error: 'the webhook answered HTTP 500' })));
    expect(await r.delivery.listDeadLetters()).toEqual(letters);

    fixed = true;
    const summary = await r.delivery.redeliver({ taskId });
    expect(summary).toEqual({ delivered: letters, failed: [], skipped: [] });
    expect(r.receiver.accepted().map((n) => n.body)).toEqual(await eventsAfter(r.tasks, taskId, 0));
    expect(r.receiver.accepted().map(sequenceOf)).toEqual(letters.map((l) => l.sequence));
    expect(await r.delivery.listDeadLetters()).toEqual([]);
    expect((await r.configs.get(taskId, 'a'))?.delivered).toBe(lastSequence);
    expect(r.delivery.stats()).toMatchObject({ delivered: lastSequence, deadLetters: lastSequence });
  });

  it('skips (and keeps) the letters of a config deleted meanwhile, saying why; removeDeadLetters drops them', async () => {
    let fixed = false;
    const r = await rig(() => (fixed ? 200 : 503), { retry: { maxAttempts: 1 } });
    const taskId = await startTask(r, { id: 'a', url: `${r.receiver.url}/a` });
    await r.client.unary('CreateTaskPushNotificationConfig', { taskId, id: 'b', url: `${r.receiver.url}/b` });
    await r.client.unary('SendMessage', { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'steps 1' }], taskId } });
    await r.service.idle();
    await r.delivery.idle();
    const ofB = await r.configs.listDeadLetters().then((all) => all.filter((l) => l.configId === 'b'));
    expect(ofB.length).toBeGreaterThan(0);
    await r.client.unary('DeleteTaskPushNotificationConfig', { taskId, id: 'b' });

    fixed = true;
    const summary = await r.delivery.redeliver();
    expect(summary.skipped).toEqual(ofB.map((letter) => ({ letter, reason: 'config-deleted' })));
    expect(summary.failed).toEqual([]);
    expect(summary.delivered.every((l) => l.configId === 'a')).toBe(true);
    expect(r.receiver.accepted().every((n) => n.path === '/a')).toBe(true);
    expect(await r.delivery.listDeadLetters()).toEqual(ofB);
    expect(await r.configs.removeDeadLetters({ taskId, configId: 'b' })).toBe(ofB.length);
    expect(await r.delivery.listDeadLetters()).toEqual([]);
  });

  it('re-reads the events of a range letter from the task store, and skips a range whose events or task are gone', async () => {
    const r = await rig();
    const taskId = await startTask(r, { id: 'a', url: `${r.receiver.url}/a` });
    await r.delivery.idle();
    const { lastSequence } = (await r.tasks.get(taskId))!;
    const sent = r.receiver.received.length;
    const range = { taskId, configId: 'a', url: `${r.receiver.url}/a`, sequence: 1, throughSequence: lastSequence, attempts: 0, error: 'gone', at: '2025-01-01T00:00:00.000Z' };
    const dropped = { ...range, sequence: lastSequence + 1, throughSequence: lastSequence + 3 };
    await r.configs.put(testPushConfig('no-such-task', 'a', 0, { url: `${r.receiver.url}/orphan` }));
    const orphan = { ...range, taskId: 'no-such-task' };
    for (const letter of [range, dropped, orphan]) await r.configs.deadLetter(letter);

    const summary = await r.delivery.redeliver({ before: '2025-01-02T00:00:00.000Z' });
    expect(summary).toEqual({
      delivered: [range],
      failed: [],
      skipped: [
        { letter: dropped, reason: 'events-gone' },
        { letter: orphan, reason: 'task-gone' },
      ],
    });
    const again = r.receiver.received.slice(sent);
    expect(again.map((n) => n.body)).toEqual(await eventsAfter(r.tasks, taskId, 0));
    expect(again.map(sequenceOf)).toEqual(again.map((_, i) => i + 1));
    expect(await r.delivery.listDeadLetters()).toEqual([dropped, orphan]);
  });

  it('refuses before the delivery serves a service, and after it closed; a bad before is a RangeError', async () => {
    const r = await rig();
    await expect(r.delivery.redeliver({ before: 'soon' })).rejects.toThrow(RangeError);
    await r.delivery.close();
    await expect(r.delivery.redeliver()).rejects.toThrow(/not serving a service/);
  });
});
