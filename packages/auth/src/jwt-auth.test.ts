import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2AError, authChallenge, withdrawalOf } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtAuth } from './jwt-auth.js';
import type { TestIdp } from './testing.js';
import { startTestIdp } from './testing.js';

const AUDIENCE = 'https://agent.taskwire.test/unit';
const CLIENT = { clientId: 'svc', clientSecret: 'svc-secret-0123456789abcdef', scopes: ['tasks:read'] };

let idp: TestIdp;
beforeAll(async () => {
  idp = await startTestIdp({ audience: AUDIENCE, clients: [CLIENT] });
});
afterAll(async () => {
  await idp?.close();
});

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!A2AError.is(error)) throw new Error(`expected an A2AError, got ${String(error)}`);
  return error;
};

describe('jwtAuth against oidc-provider', () => {
  it('discovers the JWKS from the issuer and maps sub and scope to the principal', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, typ: 'at+jwt' });
    const principal = await auth.verify(await idp.token(CLIENT));
    expect(principal).toMatchObject({ id: 'svc', scopes: ['tasks:read'], claims: { client_id: 'svc', aud: AUDIENCE, iss: idp.issuer } });
  });

  it('takes the principal from another claim when asked (a tenant claim, say)', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, principal: (claims) => ({ id: `client:${String(claims['client_id'])}` }) });
    expect((await auth.verify(await idp.token(CLIENT))).id).toBe('client:svc');
  });

  it('as an auth policy: no token is anonymous, a bad one is Unauthenticated with an RFC 6750 challenge', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: 'https://another-agent.example.com', realm: 'agents' });
    expect(await auth.authenticate({ headers: {} })).toBeUndefined();
    const error = await refusal(Promise.resolve(auth.authenticate({ headers: { authorization: `Bearer ${await idp.token(CLIENT)}` } })));
    expect(error.kind).toBe('Unauthenticated');
    expect(error.metadata).toEqual({ error: 'invalid_token', tokenError: 'wrong_audience' });
    expect(authChallenge(error, auth.challenge)).toBe(
      'Bearer realm="agents", error="invalid_token", error_description="The token is meant for another audience (aud); request a token for this agent"',
    );
  });

  it('refuses a token whose typ is not the one required', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, typ: 'JWT' });
    expect((await refusal(auth.verify(await idp.token(CLIENT)))).metadata['tokenError']).toBe('wrong_type');
  });

  it('an issuer whose discovery fails is keys_unavailable, and is not asked again within retryAfterFailureMs', async () => {
    let requests = 0;
    const down = createServer((_req, res) => {
      requests++;
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    try {
      const auth = jwtAuth({ issuer: `http://127.0.0.1:${(down.address() as AddressInfo).port}`, audience: AUDIENCE, retryAfterFailureMs: 60_000 });
      const token = await idp.token(CLIENT);
      for (let i = 0; i < 5; i++) expect((await refusal(auth.verify(token))).metadata['tokenError']).toBe('keys_unavailable');
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((resolve) => down.close(() => resolve()));
    }
  });

  it('verifiedCacheMs remembers a verified token: accepted again without its key, which a verifier without the cache refuses', async () => {
    const token = await idp.token(CLIENT);
    const cached = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, verifiedCacheMs: 60_000 });
    const uncached = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, cooldownMs: 0 });
    expect((await cached.verify(token)).id).toBe('svc');
    expect((await uncached.verify(token)).id).toBe('svc');
    await idp.rotateKeys(true); // the token's key is withdrawn (later tests take fresh tokens)
    const fresh = await idp.token(CLIENT);
    expect((await uncached.verify(fresh)).id).toBe('svc'); // the new key is fetched
    expect((await refusal(uncached.verify(token))).metadata['tokenError']).toBe('unknown_key');
    expect((await cached.verify(token)).id).toBe('svc');
  });
});

/** Resolves with the reason once `signal` aborts. */
const abortOf = (signal: AbortSignal) => new Promise<unknown>((resolve) => (signal.aborted ? resolve(signal.reason) : signal.addEventListener('abort', () => resolve(signal.reason))));

describe('jwtAuth and a signing key the issuer withdraws', () => {
  it('a key added beside it changes nothing; once it is dropped, the principal signal aborts (key_withdrawn) and the token, remembered or not, is refused', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, keyCheckIntervalMs: 100, verifiedCacheMs: 60_000 });
    const token = await idp.token(CLIENT);
    const withdrawn = withdrawalOf(await auth.verify(token))!;
    expect(withdrawn).toBeInstanceOf(AbortSignal);
    await idp.rotateKeys(false); // a new key is published; the old one stays
    const fetches = idp.jwksFetches;
    await expect.poll(() => idp.jwksFetches, { timeout: 10_000 }).toBeGreaterThan(fetches + 1); // checked at least twice since
    expect(withdrawn.aborted).toBe(false);
    expect((await auth.verify(token)).id).toBe('svc');

    await idp.rotateKeys(true); // the key that signed the token is dropped
    const reason = await abortOf(withdrawn);
    expect(A2AError.is(reason) && [reason.kind, reason.metadata['tokenError']]).toEqual(['Unauthenticated', 'key_withdrawn']);
    expect((await refusal(auth.verify(token))).metadata['tokenError']).toBe('unknown_key');
    expect((await auth.verify(await idp.token(CLIENT))).id).toBe('svc'); // tokens of the new key are accepted
  });

  it('with keyCheckIntervalMs 0, a withdrawal is found when the keys are fetched for another reason (a token with a new kid)', async () => {
    const auth = jwtAuth({ issuer: idp.issuer, audience: AUDIENCE, keyCheckIntervalMs: 0, cooldownMs: 0 });
    const withdrawn = withdrawalOf(await auth.verify(await idp.token(CLIENT)))!;
    await idp.rotateKeys(true);
    expect(withdrawn.aborted).toBe(false); // nothing fetched the keys of this verifier since
    expect((await auth.verify(await idp.token(CLIENT))).id).toBe('svc'); // an unknown kid: the keys are fetched again
    expect(A2AError.is(await abortOf(withdrawn))).toBe(true);
  });
});
