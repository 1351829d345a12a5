// The hooks the inspector's browser tests share: one headless Chromium per
// file (found as the reference agent's page tests find it), an inspector and
// a page per test, the page's script errors checked after each test. Outside
// CI a missing browser reports the tests as not run; under CI it fails.
import { fileURLToPath } from 'node:url';
import type { Browser } from '@taskwire/reference-agent/browser-kit';
import { launchBrowser } from '@taskwire/reference-agent/browser-kit';
import { findBrowser, inCi } from '@taskwire/reference-agent/find-browser';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { RunningInspector } from '../src/server.js';
import { startInspector } from '../src/server.js';

/** Where the tests save the screenshots the README shows. */
export const SCREENSHOTS = fileURLToPath(new URL('../docs/', import.meta.url));

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
  let browser: Browser | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const errors: string[] = [];
  const lookup = findBrowser();
  const missing = 'missing' in lookup ? lookup.missing : undefined;

  beforeAll(async () => {
    if (missing === undefined) browser = await launchBrowser((lookup as { path: string }).path);
    else if (inCi()) throw new Error(`The inspector's browser tests need a browser under CI: ${missing}`);
    else console.warn(`The inspector's browser tests did not run: ${missing}`);
  }, 60_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  return {
    test(name, body, timeoutMs = 60_000) {
      it(
        name,
        async (ctx) => {
          if (missing !== undefined) ctx.skip(`not run: ${missing}`);
          await body();
        },
        timeoutMs,
      );
    },
    cleanup(close) {
      cleanups.push(close);
    },
    async open(agentUrl) {
      const inspector = await startInspector(agentUrl ? { agentUrl } : {});
      cleanups.push(() => inspector.close());
      const page = await browser!.context.newPage();
      cleanups.push(() => page.close());
      page.on('pageerror', (error) => errors.push(error.message));
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
