// The helpers a file of the web page's browser tests shares: a fresh agent
// and page per test (see browser-hooks.ts for the browser and the checks).
import type { Page } from 'playwright-core';
import type { RunningAgent } from '../src/serve-all.js';
import { browserHooks } from './browser-hooks.js';
import type { Proxy } from './web-browser.js';
import { openPage, startAgent, startProxy } from './web-browser.js';

/** What {@link browserSuite} gives a test file. */
export interface BrowserSuite {
  /** A test that drives the page (reported as not run, saying why, when there is no browser outside CI). */
  test(name: string, body: () => Promise<void>): void;
  /** A new agent (memory store, `apiKey` if given) and its page, opened directly or through a {@link Proxy}. */
  open(options?: { apiKey?: string; proxied?: boolean }): Promise<{ agent: RunningAgent; page: Page; proxy: Proxy | undefined }>;
}

/** Registers the file's hooks (call it once, at the top of a test file) and returns its helpers. */
export function browserSuite(): BrowserSuite {
  const hooks = browserHooks('The web-page tests');
  return {
    test: (name, body) => hooks.test(name, body),
    async open(options = {}) {
      const agent = await startAgent(options.apiKey);
      let closed = false;
      const close = agent.close.bind(agent);
      // A test may stop the agent itself (to see the page without it): closing twice is once.
      agent.close = async () => {
        if (!closed) await close();
        closed = true;
      };
      hooks.cleanup(() => agent.close());
      const proxy = options.proxied ? await startProxy(agent.baseUrl) : undefined;
      if (proxy) hooks.cleanup(() => proxy.close());
      const page = await openPage(hooks.browser(), proxy?.url ?? agent.urls.page, hooks.watch);
      hooks.cleanup(() => page.close());
      return { agent, page, proxy };
    },
  };
}
