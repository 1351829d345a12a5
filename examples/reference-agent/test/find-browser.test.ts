import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findBrowser, inCi } from './find-browser.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(): string {
  const dir = mkdtempSync(join(tmpdir(), 'taskwire-find-browser-'));
  dirs.push(dir);
  return dir;
}

function executableAt(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('findBrowser', () => {
  it('takes CHROME_PATH first, and refuses one that is not an executable', () => {
    const dir = home();
    const chrome = executableAt(join(dir, 'my-chrome'));
    const installed = [executableAt(join(dir, 'usr/bin/chromium'))];
    expect(findBrowser({ env: { CHROME_PATH: chrome }, home: dir, platform: 'linux', installed })).toEqual({ path: chrome });
    expect(() => findBrowser({ env: { CHROME_PATH: join(dir, 'nowhere') }, home: dir, platform: 'linux', installed })).toThrow(
      `CHROME_PATH is ${join(dir, 'nowhere')}, which is not an executable file`,
    );
  });

  it('tries the install paths, then the newest Chromium in Playwright\'s cache (Linux and macOS layouts)', () => {
    const dir = home();
    const cache = join(dir, '.cache/ms-playwright');
    executableAt(join(cache, 'chromium-1100/chrome-linux/chrome'));
    const newest = executableAt(join(cache, 'chromium-1200/chrome-linux64/chrome'));
    const notExecutable = join(dir, 'usr/bin/chromium');
    mkdirSync(dirname(notExecutable), { recursive: true });
    writeFileSync(notExecutable, '');
    expect(findBrowser({ env: {}, home: dir, platform: 'linux', installed: [notExecutable] })).toEqual({ path: newest });
    const installed = executableAt(join(dir, 'usr/bin/google-chrome'));
    expect(findBrowser({ env: {}, home: dir, platform: 'linux', installed: [notExecutable, installed] })).toEqual({ path: installed });

    const mac = executableAt(join(dir, 'Library/Caches/ms-playwright/chromium-1200/chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium'));
    expect(findBrowser({ env: {}, home: dir, platform: 'darwin', installed: [] })).toEqual({ path: mac });
    const elsewhere = executableAt(join(dir, 'browsers/chromium-7/chrome-linux/chrome'));
    expect(findBrowser({ env: { PLAYWRIGHT_BROWSERS_PATH: join(dir, 'browsers') }, home: dir, platform: 'linux', installed: [] })).toEqual({ path: elsewhere });
  });

  it('says where it looked and how to install a browser when there is none', () => {
    const dir = home();
    const lookup = findBrowser({ env: {}, home: dir, platform: 'linux', installed: [] });
    expect(lookup).toEqual({ missing: expect.stringContaining('no Chromium or Chrome found') });
    const { missing } = lookup as { missing: string };
    expect(missing).toContain(join(dir, '.cache/ms-playwright'));
    expect(missing).toContain('scripts/install-browser.sh');
    expect(missing).toContain('playwright@1.65.1 install chromium');
    expect(missing).toContain('CHROME_PATH');
  });
});

describe('inCi', () => {
  it('is true when CI is set to anything but false or 0', () => {
    expect(inCi({ CI: 'true' })).toBe(true);
    expect(inCi({ CI: '1' })).toBe(true);
    expect(inCi({})).toBe(false);
    expect(inCi({ CI: 'false' })).toBe(false);
    expect(inCi({ CI: '0' })).toBe(false);
  });
});
