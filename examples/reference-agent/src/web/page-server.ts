import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@taskwire/core';
import { PAGE_SCRIPT_FILE, pageBundleOptions } from './page-bundle.js';
import { pageHtml } from './page-html.js';

/** Where the page's bundled script is served. */
export const PAGE_SCRIPT_PATH = '/web/app.js';

/**
 * The page's script as the build left it beside the built server
 * (`dist/web-page.js`); there is no such file beside the sources, where the
 * script is bundled when the server starts.
 */
const PREBUILT = new URL(`./${PAGE_SCRIPT_FILE}`, import.meta.url);

/**
 * The page's content security policy: scripts and requests only from this
 * origin (the agent's own endpoints), styles only from the page's inline
 * `<style>`, nothing else.
 */
const CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

/**
 * The page's script for browsers: the file the build made (`npm start` runs
 * the built server), or else `src/web/app.ts` and `@taskwire/client` bundled
 * from their TypeScript sources with esbuild, in memory. Rejects with
 * esbuild's messages when it does not build.
 */
export async function bundlePageScript(): Promise<string> {
  const prebuilt = await readFile(PREBUILT, 'utf8').catch(() => undefined);
  if (prebuilt !== undefined) return prebuilt;
  const { build } = await import('esbuild');
  const result = await build({ ...pageBundleOptions(), write: false });
  return result.outputFiles[0]!.text;
}

/** The bundle, made once per process (the sources do not change while it runs). */
let script: Promise<string> | undefined;

/** The web page of the reference agent. */
export interface WebPage {
  /**
   * Answers `GET`/`HEAD` of `/` (the page) and of {@link PAGE_SCRIPT_PATH}
   * (its script, once bundled); any other request gets a plain-text 404 (or
   * 405 for another method on those paths) naming where the agent's
   * endpoints are.
   */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Resolves once the script is bundled; rejects with esbuild's error when it could not be. */
  readonly ready: Promise<void>;
}

/** What {@link createWebPage} needs. */
export interface WebPageOptions {
  /** Listed in the 404 text, to help whoever typed a wrong path. */
  readonly endpoints?: readonly string[];
  /** Told when the script does not bundle (the page then answers 500 saying so). */
  readonly logger?: Logger | undefined;
}

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const TEXT = 'text/plain; charset=utf-8';
const PAGE_HEADERS = {
  'cache-control': 'no-cache',
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

function answer(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer | string, head: boolean): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { ...headers, 'content-length': String(bytes.length) });
  res.end(head ? undefined : bytes);
}

/**
 * The page and its request handler. The script is bundled in the
 * background, so the server starts as fast as without a page; a request for
 * it waits for the bundle.
 */
export function createWebPage(options: WebPageOptions = {}): WebPage {
  const html: Asset = { type: 'text/html; charset=utf-8', body: Buffer.from(pageHtml(PAGE_SCRIPT_PATH)) };
  script ??= bundlePageScript();
  const bundled = script.then(
    (code): Asset => ({ type: 'text/javascript; charset=utf-8', body: Buffer.from(code) }),
    (error: Error) => {
      options.logger?.error({ error: error.message }, 'The web page script did not bundle: the page at / will not work');
      return error;
    },
  );
  const notFound = [
    'Not found.',
    'This is the Taskwire reference agent: the chat page is at /, and the A2A endpoints are:',
    ...(options.endpoints ?? []).map((e) => `  ${e}`),
    '',
  ].join('\n');
  const send = (res: ServerResponse, asset: Asset, head: boolean) => answer(res, 200, { 'content-type': asset.type, ...PAGE_HEADERS }, asset.body, head);
  const ready = bundled.then((result) => (result instanceof Error ? Promise.reject(result) : undefined));
  ready.catch(() => undefined); // the failure is logged above; awaiting `ready` still sees it
  return {
    ready,
    handle(req, res) {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const head = req.method === 'HEAD';
      const known = path === '/' || path === '/index.html' || path === PAGE_SCRIPT_PATH;
      if (!known) return answer(res, 404, { 'content-type': TEXT }, notFound, head);
      if (req.method !== 'GET' && !head) return answer(res, 405, { allow: 'GET, HEAD', 'content-type': TEXT }, 'Use GET for the page.\n', false);
      if (path !== PAGE_SCRIPT_PATH) return send(res, html, head);
      void bundled.then((result) => {
        if (result instanceof Error) answer(res, 500, { 'content-type': TEXT }, `The page script did not bundle: ${result.message}\n`, head);
        else send(res, result, head);
      });
    },
  };
}
