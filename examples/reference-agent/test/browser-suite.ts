// The hooks and helpers a file of browser tests shares: one headless browser
// per file, a fresh agent and page per test, the page's script errors
// checked after each test, and tests that report themselves as not run when
// there is no browser (outside CI; under CI that fails the file).
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { RunningAgent } from '../src/serve-all.js';
import { findBrowser, inCi } from './find-browser.js';
import type { Browser, Proxy } from './web-browser.js';
import { launchBrowser, openPage, startAgent, startProxy } from './web-browser.js';

/** What {@link browserSuite} gives a test file. */
export interface BrowserSuite {
  /** A test that drives the page (reported as not run, saying why, when there is no browser outside CI). */
  test(name: string, body: () => Promise<void>): void;
  /** A new agent (memory store, `apiKey` if given) and its page, opened directly or through a {@link Proxy}. */
  open(options?: { apiKey?: string; proxied?: boolean }): Promise<{ agent: RunningAgent; page: Page; proxy: Proxy | undefined }>;
}

/** Registers the file's hooks (call it once, at the top of a test file) and returns its helpers. */
export function browserSuite(): BrowserSuite {
  let browser: Browser | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  const errors: string[] = [];
  const lookup = findBrowser();
  const missing = 'missing' in lookup ? lookup.missing : undefined;

  beforeAll(async () => {
    if (missing === undefined) browser = await launchBrowser((lookup as { path: string }).path);
    else if (inCi()) throw new Error(`The web-page tests need a browser under CI: ${missing}`);
    else console.warn(`The web-page tests did not run: ${missing}`);
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
    test(name, body) {
      it(name, async (ctx) => {
        if (missing !== undefined) ctx.skip(`not run: ${missing}`);
        await body();
      });
    },
    async open(options = {}) {
      const agent = await startAgent(options.apiKey);
      let closed = false;
      const close = agent.close.bind(agent);
      // A test may stop the agent itself (to see the page without it): closing twice is once.
      agent.close = async () => {
        if (!closed) await close();
        closed = true;
      };
      cleanups.push(() => agent.close());
      const proxy = options.proxied ? await startProxy(agent.baseUrl) : undefined;
      if (proxy) cleanups.push(() => proxy.close());
      const page = await openPage(browser!, proxy?.url ?? agent.urls.page, errors);
      cleanups.push(() => page.close());
      return { agent, page, proxy };
    },
  };
}
