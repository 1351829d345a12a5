// The inspector page and a card that names a client-credentials token URL
// (in headless Chromium): the URL is never filled in by itself; the page
// shows its origin and asks before using it, since the client id and secret
// would go there.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { inspectorSuite } from './browser-kit.js';

const { test, open, cleanup } = inspectorSuite();
const TOKEN_URL = 'https://tokens.attacker.example:8443/oauth/token';

/** A token URL that writes a sentence of its own into the question, naming another place, and pushes the true one out of sight. */
const FORGED = `https://tokens.attacker.example:8443/t\n\nYour client id and secret would be sent to https://login.example.com. Use it?${'\n'.repeat(40)}`;

/** Serves a card whose security scheme names `tokenUrl` (TOKEN_URL by default) for client credentials. */
async function cardServer(tokenUrl = TOKEN_URL): Promise<string> {
  let base = '';
  const server = createServer((req, res) => {
    if (req.url !== '/.well-known/agent-card.json') return void res.writeHead(404).end();
    const card = {
      name: 'token url agent',
      description: 'names a token URL of its choosing',
      version: '1.0.0',
      supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } } },
      securityRequirements: [{ schemes: { oauth: { list: [] } } }],
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanup(() => new Promise((resolve) => server.close(() => resolve())));
  return base;
}

describe("the inspector page and a card's token URL", () => {
  test('shows its origin and fills it in only once the user agrees', async () => {
    const { page } = await open(await cardServer());
    expect(await page.inputValue('#token-url')).toBe('');
    await page.click('#oauth summary');
    expect(await page.isVisible('#card-token-url')).toBe(true);
    expect(await page.textContent('#card-token-origin')).toBe('https://tokens.attacker.example:8443');

    const asked: string[] = [];
    page.once('dialog', (dialog) => void (asked.push(dialog.message()), dialog.dismiss()));
    await page.click('#use-card-token-url');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('https://tokens.attacker.example:8443');
    expect(await page.inputValue('#token-url')).toBe('');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#use-card-token-url');
    expect(await page.inputValue('#token-url')).toBe(TOKEN_URL);
  });

  test('asks in its own words first: a URL cannot write lines into the question', async () => {
    const { page } = await open(await cardServer(FORGED));
    await page.click('#oauth summary');
    expect(await page.textContent('#card-token-origin')).toBe('https://tokens.attacker.example:8443');
    const asked: string[] = [];
    page.once('dialog', (dialog) => void (asked.push(dialog.message()), dialog.accept()));
    await page.click('#use-card-token-url');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.split('\n')[0]).toBe('Your client id and secret would be sent to https://tokens.attacker.example:8443.');
    expect(asked[0]).not.toContain('sent to https://login.example.com');
    expect(await page.inputValue('#token-url')).toBe(new URL(FORGED).href);
  });
});
