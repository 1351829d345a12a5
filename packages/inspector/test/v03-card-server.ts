// A v0.3 card (`url`, `preferredTransport`, `protocolVersion`, no
// supportedInterfaces) in front of an agent's JSON-RPC endpoint, served on 127.0.0.1.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A v0.3 card whose one interface is the JSON-RPC endpoint `jsonRpcUrl`. */
export const v03Card = (jsonRpcUrl: string) => ({
  name: 'v0.3 front',
  description: 'The reference agent, described the v0.3 way',
  url: jsonRpcUrl,
  preferredTransport: 'JSONRPC',
  protocolVersion: '0.3.0',
  version: '1.0.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
});

/** Serves {@link v03Card} at the well-known path of a server of its own. */
export async function v03CardServer(jsonRpcUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v03Card(jsonRpcUrl)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
