import { jwtAuth, scopePolicy, tokenError } from '@taskwire/auth';
import { A2AError } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostileIssuer, TokenCase } from './auth/token-corpus.js';
import { hostileTokens, startHostileIssuer } from './auth/token-corpus.js';
import type { TwoPrincipalHost } from './auth/two-principals.js';
import { sendText, serveTwoPrincipals } from './auth/two-principals.js';
import { BINDINGS, connectTransport } from './support/transports.js';

const MAX_TOKEN_BYTES = 4096;
const figures: string[] = [];
afterAll(() => {
  if (figures.length) console.log(`hostile tokens: ${figures.join('; ')}`);
});

/** The refusal a call with `token` got over JSON-RPC: HTTP status, WWW-Authenticate and the ErrorInfo `tokenError`. */
async function rawRefusal(url: string, token: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
  });
  const body = (await response.json()) as { error?: { data?: { metadata?: { tokenError?: string } }[] } };
  return { status: response.status, challenge: response.headers.get('www-authenticate'), code: body.error?.data?.[0]?.metadata?.tokenError };
}

/** What a call with `token` failed with over `binding`: the A2A kind and message, or `ok`. */
async function refusalOver(host: TwoPrincipalHost, binding: (typeof BINDINGS)[number], token: string): Promise<string> {
  const transport = connectTransport(binding, host.urls, { authorization: `Bearer ${token}` });
  try {
    await transport.unary('ListTasks', {});
    return 'ok';
  } catch (error) {
    return A2AError.is(error) ? `${error.kind}: ${error.message}` : `non-A2A: ${String(error)}`;
  } finally {
    await transport.close();
  }
}

describe('hostile bearer tokens against jwtAuth', () => {
  let issuer: HostileIssuer;
  let host: TwoPrincipalHost;
  let corpus: TokenCase[];
  beforeAll(async () => {
    issuer = await startHostileIssuer();
    const auth = jwtAuth({ issuer: issuer.issuer, audience: issuer.audience, jwksUri: issuer.jwksUri, maxTokenBytes: MAX_TOKEN_BYTES });
    host = await serveTwoPrincipals({ auth, authorize: scopePolicy() });
    corpus = await hostileTokens(issuer, MAX_TOKEN_BYTES);
  });
  afterAll(async () => {
    await host?.close();
    await issuer?.close();
  });

  it('each token gets 401 invalid_token with its own description and code over JSON-RPC, never echoing the token', async () => {
    for (const { name, token, expected } of corpus) {
      const refusal = await rawRefusal(host.urls.jsonRpc, token);
      expect({ name, ...refusal }).toEqual({ name, status: 401, challenge: expect.stringContaining('error="invalid_token"'), code: expected });
      expect(refusal.challenge).toContain(`error_description="${tokenError(expected).message}"`);
      expect(refusal.challenge).not.toContain(token.slice(0, 40));
    }
    figures.push(`${corpus.length} tokens refused with the right code over JSON-RPC`);
  });

  it.each(BINDINGS)('each token is Unauthenticated with the same description over %s, and a valid token still works after them', async (binding) => {
    for (const { name, token, expected } of corpus) {
      expect({ name, got: await refusalOver(host, binding, token) }).toEqual({ name, got: `Unauthenticated: ${tokenError(expected).message}` });
    }
    const alice = connectTransport(binding, host.urls, { authorization: `Bearer ${await issuer.sign({ sub: 'alice' })}` });
    try {
      expect((await sendText(alice, 'echo still serving')).status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await alice.close();
    }
  });

  it('200 tokens with distinct unknown kids at once cause at most one JWKS fetch (no request storm)', async () => {
    const before = issuer.fetches;
    const tokens = await Promise.all(Array.from({ length: 200 }, () => issuer.sign({}, { kid: crypto.randomUUID() })));
    const started = performance.now();
    const refusals = await Promise.all(tokens.map((token) => rawRefusal(host.urls.jsonRpc, token)));
    const ms = performance.now() - started;
    expect(refusals.every((r) => r.status === 401 && r.code === 'unknown_key')).toBe(true);
    expect(issuer.fetches - before).toBeLessThanOrEqual(1);
    figures.push(`200 distinct unknown kids: ${issuer.fetches - before} JWKS fetch(es), all 401 unknown_key in ${ms.toFixed(0)} ms`);
  });
});

describe.each(['slow', 'error', 'garbage'] as const)('a JWKS endpoint that is %s', (mode) => {
  let issuer: HostileIssuer;
  let host: TwoPrincipalHost;
  beforeAll(async () => {
    issuer = await startHostileIssuer();
    issuer.mode = mode;
    const auth = jwtAuth({ issuer: issuer.issuer, audience: issuer.audience, jwksUri: issuer.jwksUri, fetchTimeoutMs: 250 });
    host = await serveTwoPrincipals({ auth });
  });
  afterAll(async () => {
    await host?.close();
    await issuer?.close();
  });

  it('makes a valid token 401 keys_unavailable, quickly, with one fetch for 20 concurrent and 20 sequential requests; the server keeps serving', async () => {
    const token = await issuer.sign({ sub: 'alice' });
    const started = performance.now();
    const refusals = await Promise.all(Array.from({ length: 20 }, () => rawRefusal(host.urls.jsonRpc, token)));
    for (let i = 0; i < 20; i++) refusals.push(await rawRefusal(host.urls.jsonRpc, token));
    const ms = performance.now() - started;
    expect(refusals.map((r) => `${r.status} ${r.code}`)).toEqual(Array.from({ length: 40 }, () => '401 keys_unavailable'));
    expect(issuer.fetches).toBe(1);
    expect((await fetch(host.urls.card)).status).toBe(200);
    figures.push(`JWKS ${mode}: 40 valid tokens -> 401 keys_unavailable in ${ms.toFixed(0)} ms with ${issuer.fetches} fetch`);
  });
});
