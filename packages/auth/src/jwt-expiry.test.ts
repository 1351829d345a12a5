import { A2AError } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwksUriProblem } from './discovery.js';
import { jwtAuth } from './jwt-auth.js';
import type { TestIssuer } from './testing.js';
import { startTestIssuer } from './testing.js';

const AUDIENCE = 'https://agent.taskwire.test/expiry';

const tokenErrorOf = async (promise: Promise<unknown>): Promise<string> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!A2AError.is(error)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return `${error.kind} ${error.metadata['tokenError']}`;
};

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer();
});
afterAll(async () => {
  await issuer?.close();
});

describe('jwtAuth and exp', () => {
  it('refuses a signed token without exp by default (missing_expiry), and accepts one with exp', async () => {
    const auth = jwtAuth({ issuer: issuer.issuer, audience: AUDIENCE });
    expect(await tokenErrorOf(auth.verify(await issuer.sign({ sub: 'forever', aud: AUDIENCE })))).toBe('Unauthenticated missing_expiry');
    const exp = Math.floor(Date.now() / 1000) + 600;
    expect(await auth.verify(await issuer.sign({ sub: 'alice', aud: AUDIENCE, exp }))).toMatchObject({ id: 'alice', expiresAt: exp * 1000 });
  });

  it('allowTokensWithoutExp accepts one, and verifiedCacheMs never remembers it (a token with exp is remembered)', async () => {
    let made = 0;
    const auth = jwtAuth({
      issuer: issuer.issuer,
      audience: AUDIENCE,
      allowTokensWithoutExp: true,
      verifiedCacheMs: 3_600_000,
      principal: (claims) => (made++, { id: String(claims.sub) }),
    });
    const forever = await issuer.sign({ sub: 'forever', aud: AUDIENCE });
    expect(await auth.verify(forever)).toEqual({ id: 'forever', withdrawn: expect.any(AbortSignal) }); // no exp: it ends only if its key is withdrawn
    expect(await auth.verify(forever)).toEqual({ id: 'forever', withdrawn: expect.any(AbortSignal) });
    expect(made).toBe(2); // verified twice: not cached
    const expiring = await issuer.sign({ sub: 'alice', aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 });
    await auth.verify(expiring);
    const principal = await auth.verify(expiring);
    expect(made).toBe(3); // verified once, then remembered
    expect(principal).toMatchObject({ id: 'alice', expiresAt: expect.any(Number) }); // a custom principal gets expiresAt too
  });
});

describe('jwtAuth and the discovered jwks_uri', () => {
  it('refuses a jwks_uri on another host than the issuer (keys_unavailable, logged), unless jwksHosts lists it', async () => {
    const elsewhere = await startTestIssuer({ jwksUri: (own) => `${own.replace('127.0.0.1', 'localhost')}/jwks` });
    try {
      const warnings: string[] = [];
      const logger = { warn: (fields: { error?: unknown }) => void warnings.push(String((fields.error as Error | undefined)?.message)), info() {}, error() {}, debug() {} };
      const token = await elsewhere.sign({ sub: 'alice', aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 600 });
      const strict = jwtAuth({ issuer: elsewhere.issuer, audience: AUDIENCE, logger: logger as never });
      expect(await tokenErrorOf(strict.verify(token))).toBe('Unauthenticated keys_unavailable');
      expect(warnings[0]).toMatch(/jwks_uri http:\/\/localhost:\d+\/jwks is not on the host of the issuer/);
      expect(elsewhere.jwksFetches).toBe(0);
      const allowed = jwtAuth({ issuer: elsewhere.issuer, audience: AUDIENCE, jwksHosts: ['localhost'] });
      expect((await allowed.verify(token)).id).toBe('alice');
      expect(elsewhere.jwksFetches).toBe(1);
    } finally {
      await elsewhere.close();
    }
  });

  it('an https issuer needs an https jwks_uri on its host', () => {
    expect(jwksUriProblem('https://idp.example.com', 'http://idp.example.com/jwks')).toMatch(/is not https/);
    expect(jwksUriProblem('https://idp.example.com', 'https://keys.example.net/jwks')).toMatch(/not on the host/);
    expect(jwksUriProblem('https://idp.example.com', 'https://keys.example.net/jwks', ['keys.example.net'])).toBeUndefined();
    expect(jwksUriProblem('https://idp.example.com/tenant', 'https://IDP.example.com/tenant/jwks')).toBeUndefined();
    expect(jwksUriProblem('https://idp.example.com', 'https://keys.example.net/jwks', ['keys.example.net'].map(String)) ?? 'ok').toBe('ok');
    expect(jwksUriProblem('https://idp.example.com', 'file:///etc/keys')).toMatch(/not an http\(s\) URL/);
  });
});
