// Where the web-page tests look for a Chromium (or Chrome) to drive with
// playwright-core, which downloads no browser itself.
import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What {@link browserCandidates} looks at (the process's own by default; tests pass their own). */
export interface BrowserSearch {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
  readonly platform: NodeJS.Platform;
  /** The install paths to try before Playwright's cache (default: the usual ones of `platform`). */
  readonly installed?: readonly string[];
}

const here: BrowserSearch = { env: process.env, home: homedir(), platform: process.platform };

/** Playwright's browser cache: `PLAYWRIGHT_BROWSERS_PATH`, else its per-platform default. */
function playwrightCache({ env, home, platform }: BrowserSearch): string {
  if (env.PLAYWRIGHT_BROWSERS_PATH && env.PLAYWRIGHT_BROWSERS_PATH !== '0') return env.PLAYWRIGHT_BROWSERS_PATH;
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'ms-playwright');
  return join(home, '.cache', 'ms-playwright');
}

/** The executables inside Playwright's cache, newest revision first (`chromium-<revision>/...`). */
function playwrightBrowsers(search: BrowserSearch): string[] {
  const cache = playwrightCache(search);
  let revisions: string[];
  try {
    revisions = readdirSync(cache).filter((name) => /^chromium-\d+$/.test(name));
  } catch {
    return [];
  }
  revisions.sort((a, b) => Number(b.slice(9)) - Number(a.slice(9)));
  const inside =
    search.platform === 'darwin'
      ? ['chrome-mac/Chromium.app/Contents/MacOS/Chromium', 'chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium']
      : ['chrome-linux/chrome', 'chrome-linux64/chrome'];
  return revisions.flatMap((revision) => inside.map((path) => join(cache, revision, path)));
}

/**
 * Every place a browser may be, in the order they are tried: `CHROME_PATH`,
 * the usual install paths on Linux and macOS, then Playwright's cache.
 */
export function browserCandidates(search: BrowserSearch = here): string[] {
  const { home, platform } = search;
  const installed =
    search.installed ??
    (platform === 'darwin'
      ? [
          '/Applications/Chromium.app/Contents/MacOS/Chromium',
          '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
          join(home, 'Applications/Chromium.app/Contents/MacOS/Chromium'),
          join(home, 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
        ]
      : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/opt/google/chrome/chrome']);
  return [...installed, ...playwrightBrowsers(search)];
}

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** How to get a browser the tests can use. */
export const INSTALL_HINT =
  'install one: "scripts/install-browser.sh" as root (Debian or Ubuntu: apt-get install chromium), ' +
  'or "npx -y playwright@1.65.1 install chromium" (any system: into Playwright\'s cache), ' +
  'or set CHROME_PATH to a Chrome or Chromium executable';

/** The browser found, or why none was. */
export type BrowserLookup = { readonly path: string } | { readonly missing: string };

/**
 * Finds the browser to drive: `CHROME_PATH` when set, else the first
 * executable of {@link browserCandidates}. Throws when `CHROME_PATH` names
 * no executable (a browser asked for by name is not passed over).
 */
export function findBrowser(search: BrowserSearch = here): BrowserLookup {
  const chosen = search.env.CHROME_PATH;
  if (chosen) {
    if (executable(chosen)) return { path: chosen };
    throw new Error(`CHROME_PATH is ${chosen}, which is not an executable file; ${INSTALL_HINT}`);
  }
  const path = browserCandidates(search).find(executable);
  if (path) return { path };
  return { missing: `no Chromium or Chrome found (CHROME_PATH is unset; looked in the usual places and in ${playwrightCache(search)}); ${INSTALL_HINT}` };
}

/** True under CI (`CI` set to anything but `false` or `0`): a missing browser is then a failure, not a test left out. */
export function inCi(env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}
