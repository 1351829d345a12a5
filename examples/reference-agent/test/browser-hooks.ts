// The hooks every file of browser tests needs: one headless browser per
// file, cleanups and a check of the page's script errors after each test,
// and tests that report themselves as not run when there is no browser
// (outside CI; under CI that fails the file).
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { findBrowser, inCi } from './find-browser.js';
import type { Browser } from './web-browser.js';
import { launchBrowser } from './web-browser.js';

/** What {@link browserHooks} gives a test file. */
export interface BrowserHooks {
  /** A test that drives a page (reported as not run, saying why, when there is no browser outside CI). */
  test(name: string, body: () => Promise<void>, timeoutMs?: number): void;
  /** The file's browser (inside a test). */
  browser(): Browser;
  /** Runs `close` after the test, the last registered first. */
  cleanup(close: () => Promise<void>): void;
  /** Collects the script errors of `page`: a test fails when its pages had any. */
  watch(page: Page): void;
}

/** Registers the file's hooks (call it once, at the top of a test file); `what` names the tests in messages. */
export function browserHooks(what: string): BrowserHooks {
  let browser: Browser | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const errors: string[] = [];
  const lookup = findBrowser();
  const missing = 'missing' in lookup ? lookup.missing : undefined;

  beforeAll(async () => {
    if (missing === undefined) browser = await launchBrowser((lookup as { path: string }).path);
    else if (inCi()) throw new Error(`${what} need a browser under CI: ${missing}`);
    else console.warn(`${what} did not run: ${missing}`);
  }, 60_000);
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    // The page's script must not have thrown.
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
  });

  return {
    test(name, body, timeoutMs) {
      it(
        name,
        async (ctx) => {
          if (missing !== undefined) ctx.skip(`not run: ${missing}`);
          await body();
        },
        timeoutMs,
      );
    },
    browser: () => browser!,
    cleanup(close) {
      cleanups.push(close);
    },
    watch(page) {
      page.on('pageerror', (error) => errors.push(error.message));
    },
  };
}
