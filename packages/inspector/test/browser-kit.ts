// The helpers the inspector's browser tests share: an inspector and its page
// per test, on the reference agent's browser hooks (one headless Chromium per
// file, found as its page tests find it; script errors checked after each test).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserHooks } from '@taskwire/reference-agent/browser-hooks';
import type { Locator, Page } from 'playwright-core';
import type { RunningInspector } from '../src/server.js';
import { startInspector } from '../src/server.js';

/** Where the tests save the screenshots the README shows. */
const SCREENSHOTS = fileURLToPath(new URL('../docs/', import.meta.url));

/**
 * Saves what `locator` shows as `docs/<name>.png` for the README, when
 * `TASKWIRE_SCREENSHOTS=1` (so that a test run leaves the tree as it was).
 */
export async function screenshot(locator: Locator, name: string): Promise<void> {
  if (process.env.TASKWIRE_SCREENSHOTS === '1') await locator.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** What {@link inspectorSuite} gives a test file. */
export interface InspectorSuite {
  test(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  /** Starts an inspector and opens its page (on `agentUrl`, inspected, when given); closed after the test. */
  open(agentUrl?: string): Promise<{ page: Page; inspector: RunningInspector }>;
  /** Runs after the test (servers the test started). */
  cleanup(close: () => Promise<void>): void;
}

/** Registers the file's hooks and returns its helpers (call once, at the top of a test file). */
export function inspectorSuite(): InspectorSuite {
  const hooks = browserHooks("The inspector's browser tests");
  return {
    test: (name, body, timeoutMs = 60_000) => hooks.test(name, body, timeoutMs),
    cleanup: (close) => hooks.cleanup(close),
    async open(agentUrl) {
      const inspector = await startInspector(agentUrl ? { agentUrl } : {});
      hooks.cleanup(() => inspector.close());
      const page = await hooks.browser().context.newPage();
      hooks.cleanup(() => page.close());
      hooks.watch(page);
      await page.goto(inspector.url);
      await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
      if (agentUrl) await page.waitForSelector('body[data-inspected="true"]', { state: 'attached' });
      return { page, inspector };
    },
  };
}

/** One row of the timeline as the page shows it. */
export interface ShownEntry {
  index: number;
  sequence: string;
  kind: string;
  state: string;
  flags: string;
}

/** Reads the timeline table. */
export function shownTimeline(page: Page): Promise<ShownEntry[]> {
  return page.$$eval('#timeline tbody tr', (rows) =>
    rows.map((row) => {
      const cells = Array.from(row.querySelectorAll(':scope > td')).map((td) => td.textContent ?? '');
      return { index: Number(cells[0]), sequence: cells[1] ?? '', kind: row.getAttribute('data-kind') ?? '', state: row.getAttribute('data-state') ?? '', flags: row.getAttribute('data-flags') ?? '' };
    }),
  );
}

/** Sends `text` from the composer over the interface at `index` (or the client's pick). */
export async function say(page: Page, text: string, index?: number): Promise<void> {
  await page.selectOption('#iface', index === undefined ? '' : String(index));
  await page.fill('#message', text);
  await page.click('#send');
}

/** Waits until the task shows `state` and no stream is open. */
export async function waitForState(page: Page, state: string): Promise<void> {
  await page.waitForSelector(`#task-state[data-state="${state}"]`, { state: 'attached' });
  await page.waitForSelector('body[data-busy="false"]', { state: 'attached' });
}
