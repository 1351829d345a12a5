// The page's push panel against a Taskwire agent with push notifications on:
// a config created to the inspector's own webhook receiver, what the agent
// delivered there, the config listed and deleted.
import type { AgentCard } from '@taskwire/core';
import { createMemoryPushConfigStore, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { webhookDelivery } from '@taskwire/core/push';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';
import { describe, expect } from 'vitest';
import { inspectorSuite, say, waitForState } from './browser-kit.js';

const { test, open, cleanup } = inspectorSuite();

/** The reference agent with push notifications on, delivering to 127.0.0.1 (the receiver is local). */
async function pushAgent(): Promise<string> {
  const card: AgentCard = { ...referenceAgentCard([]), capabilities: { streaming: true, pushNotifications: true } };
  const service = new TaskService({
    store: createMemoryTaskStore(),
    agent: referenceAgent,
    card,
    push: { store: createMemoryPushConfigStore(), delivery: webhookDelivery({ allow: ['127.0.0.1'] }) },
  });
  const server = await serveA2A({ service, port: 0, host: '127.0.0.1' });
  cleanup(async () => (await server.close(), await service.close()));
  return server.url;
}

describe('the push panel in headless Chromium', () => {
  test('creates a config to the local webhook, shows what the agent delivered, lists and deletes it', async () => {
    const { page } = await open(await pushAgent());
    await say(page, 'a sunset quote please');
    await waitForState(page, 'TASK_STATE_INPUT_REQUIRED');
    const taskId = (await page.textContent('#task-id'))!;

    await page.fill('#push-task', taskId);
    await page.fill('#push-token', 'tok-1');
    await page.click('#push-create');
    await page.waitForSelector('#push-configs tbody tr');
    const configs = await page.$$eval('#push-configs tbody tr', (rows) => rows.map((r) => Array.from(r.children).map((td) => td.textContent)));
    expect(configs).toHaveLength(1);
    expect(configs[0]![1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook\//);
    expect(configs[0]![2]).toBe('tok-1');
    expect(await page.textContent('#webhook-url')).toBe(configs[0]![1]);

    // The task goes on: the agent delivers its updates to the receiver, and the page shows them.
    await say(page, 'insta');
    await waitForState(page, 'TASK_STATE_COMPLETED');
    await page.waitForSelector('#deliveries li[data-summary="statusUpdate COMPLETED"]', { state: 'attached' });
    const delivered = await page.$$eval('#deliveries li', (items) => items.map((i) => i.getAttribute('data-summary')));
    expect(delivered).toContain('artifactUpdate');
    expect(await page.textContent('#deliveries li:last-child')).toContain('token tok-1');

    await page.click('#push-configs tbody tr .delete-push');
    await page.waitForFunction(() => document.querySelectorAll('#push-configs tbody tr').length === 0);
  });
});
