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
