import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { PLATFORM_QUESTION, QUOTES, shorten } from '../src/quotes.js';
import { browserSuite } from './browser-suite.js';
import { say, shownTurns, waitForProgress, waitForTurn } from './web-browser.js';

const { test: browserTest, open } = browserSuite();

/**
 * True when the (first) artifact box overflows and is scrolled to its end,
 * showing the newest chunk. Measured in one evaluation: the page redraws
 * the log at every frame while it streams, so an element handle kept
 * across calls would point at a box no longer shown.
 */
const showsNewestChunk = (page: Page) =>
  page.evaluate(() => {
    const box = document.querySelector('.artifact-body')!;
    return box.scrollHeight > box.clientHeight + 20 && box.scrollHeight - box.scrollTop - box.clientHeight < 2;
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const route = (page: Page) => page.textContent('#route');

describe('the web page in headless Chromium', () => {
  browserTest("plays seed 000's conversation: reuses the task on input-required, then a new task referencing it; a reload rebuilds it", async () => {
    const { agent, page } = await open();

    await say(page, 'provide a sunset quote');
    await waitForTurn(page, 0, 'TASK_STATE_INPUT_REQUIRED');
    const [asked] = await shownTurns(page);
    expect(asked!.taskId).toMatch(UUID);
    expect(asked!.stateLabel).toBe('input-required');
    expect(asked!.messages).toEqual([
      ['user', 'provide a sunset quote'],
      ['agent', PLATFORM_QUESTION],
    ]);
    const taskA = asked!.taskId;
    expect(await route(page)).toContain(`continues task ${taskA.slice(0, 8)}`);

    await say(page, 'insta');
    await waitForTurn(page, 0, 'TASK_STATE_COMPLETED');
    const afterInsta = await shownTurns(page);
    expect(afterInsta).toHaveLength(1); // the same task, not a new one
    expect(afterInsta[0]).toMatchObject({ taskId: taskA, stateLabel: 'completed', refs: [] });
    expect(afterInsta[0]!.messages).toEqual([
      ['user', 'provide a sunset quote'],
      ['agent', PLATFORM_QUESTION],
      ['user', 'insta'],
      ['agent', 'Writing an insta quote…'],
      ['agent', 'Here is your insta quote.'],
    ]);
    expect(afterInsta[0]!.artifacts).toEqual([{ id: 'quote', complete: true, text: QUOTES.insta }]);
    expect(await route(page)).toContain(`new task that references ${taskA.slice(0, 8)}`);

    await say(page, 'make it shorter');
    await waitForTurn(page, 1, 'TASK_STATE_COMPLETED');
    const shown = await shownTurns(page);
    expect(shown).toHaveLength(2);
    const taskB = shown[1]!.taskId;
    expect(taskB).toMatch(UUID);
    expect(taskB).not.toBe(taskA);
    expect(shown[1]).toMatchObject({ stateLabel: 'completed', refs: [taskA.slice(0, 8)] });
    expect(shown[1]!.messages).toEqual([
      ['user', 'make it shorter'],
      ['agent', 'Here is a shorter version.'],
    ]);
    expect(shown[1]!.artifacts).toEqual([{ id: 'quote', complete: true, text: shorten(QUOTES.insta!) }]);

    // What the agent stored: task B references task A, in the same context.
    const [a, b] = await Promise.all([taskA, taskB].map((id) => agent.service.unary('GetTask', { id }, {})));
    expect(b!.history![0]!.referenceTaskIds).toEqual([taskA]);
    expect(b!.contextId).toBe(a!.contextId);

    // A reload loads the context's tasks with ListTasks and shows the same conversation, nothing twice.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    await page.waitForSelector('#log > article.turn:nth-child(2)', { state: 'attached' });
    expect(await shownTurns(page)).toEqual(shown);

    // The rebuilt conversation knows where it is: the next message follows up on task B.
    expect(await route(page)).toContain(`new task that references ${taskB.slice(0, 8)}`);
    await say(page, 'echo still here');
    await waitForTurn(page, 2, 'TASK_STATE_COMPLETED');
    const third = (await shownTurns(page))[2]!;
    expect(third.refs).toEqual([taskB.slice(0, 8)]);
    expect(third.messages).toEqual([
      ['user', 'echo still here'],
      ['agent', 'still here'],
    ]);
  });

  browserTest('streams slow work with progress, picks the running task up again after a reload, and cancels it', async () => {
    const { agent, page } = await open();

    await say(page, 'slow 1000 20');
    const before = await waitForProgress(page, 3);
    const [running] = await shownTurns(page);
    expect(running!.stateLabel).toBe('working');
    expect(running!.progress!.total).toBe(1000);
    expect(running!.artifacts[0]).toMatchObject({ id: 'output', complete: false });
    expect(running!.artifacts[0]!.text).toContain('chunk 3 of 1000');
    expect(await page.isEnabled('#cancel')).toBe(true);
    expect(await page.isEnabled('#send')).toBe(false);

    // After a reload the page resubscribes to the running task: progress goes on, chunks are neither lost nor repeated.
    await page.reload();
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
    const after = await waitForProgress(page, before + 20);
    // More chunks than the artifact box shows: it keeps the newest one in view.
    expect(await showsNewestChunk(page)).toBe(true);
    const [resumed] = await shownTurns(page);
    expect(resumed!.taskId).toBe(running!.taskId);
    const lines = resumed!.artifacts[0]!.text.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(after - 1);
    expect(lines).toEqual(lines.map((_, i) => `chunk ${i + 1} of 1000`));

    await page.click('#cancel');
    await waitForTurn(page, 0, 'TASK_STATE_CANCELED');
    const [canceled] = await shownTurns(page);
    expect(canceled!.stateLabel).toBe('canceled');
    const stored = await agent.service.unary('GetTask', { id: running!.taskId }, {});
    expect(stored.status.state).toBe('TASK_STATE_CANCELED');
    // No more chunks will come: the page shows the artifact as it ended, exactly as the agent stored it.
    const storedText = stored.artifacts![0]!.parts.map((p) => ('text' in p ? p.text : '')).join('');
    expect(canceled!.artifacts[0]).toEqual({ id: 'output', complete: true, text: storedText.trimEnd() });
    // The progress counts the chunks that arrived, and the box still shows the last of them.
    expect(canceled!.progress).toEqual({ current: storedText.trimEnd().split('\n').length, total: 1000 });
    expect(await showsNewestChunk(page)).toBe(true);
    expect(await page.isEnabled('#cancel')).toBe(false);
    expect(await page.isEnabled('#send')).toBe(true);
    expect(await route(page)).toContain(`new task that references ${running!.taskId.slice(0, 8)}`);
  });

  browserTest('with --api-key, says a key is needed, then works with the key entered in the page (and keeps it over a reload)', async () => {
    const { page } = await open({ apiKey: 'sekret' });

    await say(page, 'echo locked');
    await page.waitForSelector('#notice:not([hidden])');
    expect(await page.textContent('#notice')).toContain('needs an API key');
    expect(await shownTurns(page)).toEqual([]);

    await page.fill('#api-key', 'sekret');
    await page.click('#key-form button');
    await page.waitForSelector('#notice', { state: 'hidden' });
    await say(page, 'echo unlocked');
    await waitForTurn(page, 0, 'TASK_STATE_COMPLETED');
    const shown = await shownTurns(page);
    expect(shown[0]!.messages).toEqual([
      ['user', 'echo unlocked'],
      ['agent', 'unlocked'],
    ]);

    await page.reload();
    await page.waitForSelector('#log > article.turn', { state: 'attached' });
    expect(await shownTurns(page)).toEqual(shown);
  });
});
