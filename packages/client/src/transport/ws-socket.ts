import { VERSION_PARAMETER, versionParameter } from '@taskwire/core';

/** A WebSocket class: the platform's, or `ws`'s (Node 20 has none of its own). */
export type WebSocketClass = typeof globalThis.WebSocket;

/**
 * The WebSocket class a connection uses: `given`, the platform's, or `ws`'s; with the upgrade headers, when there are any (`ws`
 * and Node's own WebSocket take them as the second argument). `opened` sees
 * every socket it creates.
 */
export async function socketClass(given: WebSocketClass | undefined, upgradeHeaders: Readonly<Record<string, string>> | undefined, opened: (socket: WebSocket) => void): Promise<WebSocketClass> {
  const Base = given ?? globalThis.WebSocket ?? ((await import('ws')).WebSocket as unknown as WebSocketClass);
  const headers = upgradeHeaders && Object.keys(upgradeHeaders).length > 0 ? upgradeHeaders : undefined;
  const Constructor = Base as unknown as new (url: string | URL, init?: object) => WebSocket;
  return class extends Constructor {
    constructor(url: string | URL) {
      super(url, headers && { headers });
      opened(this);
    }
  } as unknown as WebSocketClass;
}

/** Where a connection goes, and the headers of its upgrade request. */
export interface UpgradeTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/**
 * The URL and upgrade headers of a connection to `url` with `headers`: an
 * `a2a-version` header goes in the URL instead, as its `A2A-Version` query
 * parameter (the request parameter the specification allows in place of
 * the header), so the version is asked for by every WebSocket, a browser's
 * too, which cannot send headers; a parameter already in `url` wins. Every
 * other header stays an upgrade header.
 */
export function upgradeTarget(url: string, headers: Readonly<Record<string, string>> | undefined): UpgradeTarget {
  const name = headers && Object.keys(headers).find((n) => n.toLowerCase() === 'a2a-version');
  if (name === undefined) return { url, headers };
  const { [name]: version, ...others } = headers!;
  const target = new URL(url);
  if (versionParameter(target.searchParams) === undefined) target.searchParams.set(VERSION_PARAMETER, version!);
  return { url: target.href, headers: others };
}
