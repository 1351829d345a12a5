import { describe, expect } from 'vitest';
import { UNREACHABLE } from '../src/web/connect.js';
import { browserSuite } from './browser-suite.js';
import { say, shownTurns, waitForProgress, waitForTurn } from './web-browser.js';

const { test, open } = browserSuite();

describe('the web page when the network fails (headless Chromium)', () => {
  test('an agent that cannot be reached is said so plainly, and the typed message is kept', async () => {
    const { agent, page } = await open();
    await agent.close();
    await say(page, 'echo are you there?');
    await page.waitForSelector('#notice:not([hidden])');
    expect(await page.textContent('#notice')).toBe(UNREACHABLE);
    expect(await page.inputValue('#input')).toBe('echo are you there?');
    expect(await shownTurns(page)).toEqual([]);
    expect(await page.isEnabled('#send')).toBe(true);
  });

  test('a dropped stream shows "reconnecting", then resumes where it was: no chunk lost or repeated', async () => {
    const { page, proxy } = await open({ proxied: true });
    await say(page, 'slow 400 20');
    const before = await waitForProgress(page, 3);

    proxy!.down();
    await page.waitForSelector('body[data-reconnecting="true"]', { state: 'attached' });
    expect(await page.textContent('#notice')).toContain('reconnecting');
    proxy!.up();

    await waitForProgress(page, before + 10);
    await page.waitForSelector('body[data-reconnecting="false"]', { state: 'attached' });
    expect(await page.isHidden('#notice')).toBe(true);
    const [turn] = await shownTurns(page);
    expect(turn!.stateLabel).toBe('working');
    const lines = turn!.artifacts[0]!.text.split('\n');
    expect(lines).toEqual(lines.map((_, i) => `chunk ${i + 1} of 400`));

    await page.click('#cancel');
    await waitForTurn(page, 0, 'TASK_STATE_CANCELED');
  });
});
