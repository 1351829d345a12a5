// Test kit of the web page's browser tests: a headless Chromium or Chrome
// found on the machine (see find-browser.ts) driven by playwright-core (no
// browser download), the reference agent in-process, and a snapshot of what
// the page shows.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { DEFAULT_DRAIN_GRACE_MS } from '../src/options.js';
import { serveAll, type RunningAgent } from '../src/serve-all.js';

const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile (`--user-data-dir` in a new temporary directory). */
export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches the Chromium or Chrome at `executablePath` headless (see `findBrowser`). */
export async function launchBrowser(executablePath: string): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'taskwire-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: FLAGS,
    viewport: { width: 1000, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A TCP proxy in front of an agent: the page opened through it talks to the agent through it, and a test can cut it. */
export interface Proxy {
  /** The page's URL through the proxy (its own origin). */
  readonly url: string;
  /** Drops every connection, and refuses new ones until {@link up}. */
  down(): void;
  /** Lets connections through again. */
  up(): void;
  close(): Promise<void>;
}

/** Starts a {@link Proxy} on a free port of 127.0.0.1 in front of `target` (the agent's base URL). */
export async function startProxy(target: string): Promise<Proxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) return void client.destroy();
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined).on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const down = () => {
    refusing = true;
    for (const socket of open) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    down,
    up() {
      refusing = false;
    },
    close() {
      down();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts the reference agent on free ports with a memory store (each agent is its own origin, so its own localStorage). */
export function startAgent(apiKey?: string): Promise<RunningAgent> {
  return serveAll({ host: '127.0.0.1', port: 0, grpcPort: 0, store: { kind: 'memory' }, apiKey, drainGraceMs: DEFAULT_DRAIN_GRACE_MS });
}

/** Opens the page in a new tab and resolves once its script has connected; `watch` sees the page first (to collect its errors). */
export async function openPage(browser: Browser, url: string, watch: (page: Page) => void): Promise<Page> {
  const page = await browser.context.newPage();
  watch(page);
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  return page;
}

/** Types `text` in the composer and sends it (the click waits until Send is enabled, i.e. the previous turn ended). */
export async function say(page: Page, text: string): Promise<void> {
  await page.fill('#input', text);
  await page.click('#send');
}

/** Waits until turn `index` (0-based) shows `state` (e.g. `TASK_STATE_COMPLETED`) and the page is not streaming. */
export async function waitForTurn(page: Page, index: number, state: string): Promise<void> {
  await page.waitForSelector(`#log > article.turn:nth-child(${index + 1})[data-state="${state}"]`, { state: 'attached' });
  await page.waitForSelector('body[data-busy="false"]', { state: 'attached' });
}

/** What the page shows of one turn. */
export interface ShownTurn {
  taskId: string;
  state: string;
  stateLabel: string;
  refs: string[];
  messages: [role: string, text: string][];
  artifacts: { id: string; complete: boolean; text: string }[];
  progress: { current: number; total: number } | null;
}

/** Reads every turn the page shows (artifact text without its trailing newlines). */
export function shownTurns(page: Page): Promise<ShownTurn[]> {
  return page.$$eval('#log > article.turn', (turns) =>
    turns.map((turn) => {
      const progress = turn.querySelector('.progress');
      return {
        taskId: turn.getAttribute('data-task-id') ?? '',
        state: turn.getAttribute('data-state') ?? '',
        stateLabel: turn.querySelector('.state')?.textContent ?? '',
        refs: Array.from(turn.querySelectorAll('.refs .ref')).map((r) => r.textContent ?? ''),
        messages: Array.from(turn.querySelectorAll('.msg')).map((m) => [m.getAttribute('data-role') ?? '', (m as HTMLElement).innerText] as [string, string]),
        artifacts: Array.from(turn.querySelectorAll('.artifact')).map((a) => ({
          id: a.getAttribute('data-artifact-id') ?? '',
          complete: a.getAttribute('data-complete') === 'true',
          text: (a.querySelector('.artifact-body') as HTMLElement).innerText.replace(/\n+$/, ''),
        })),
        progress: progress ? { current: Number(progress.getAttribute('data-current')), total: Number(progress.getAttribute('data-total')) } : null,
      };
    }),
  );
}

/** Waits until the first turn's progress reaches at least `current`; resolves with the value shown then. */
export async function waitForProgress(page: Page, current: number): Promise<number> {
  const handle = await page.waitForFunction((min) => {
    const value = Number(document.querySelector('#log > article.turn .progress')?.getAttribute('data-current'));
    return value >= min ? value : undefined;
  }, current);
  return (await handle.jsonValue()) as number;
}
