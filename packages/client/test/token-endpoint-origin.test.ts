// OIDC discovery chooses where the client secret goes: a token_endpoint on
// another origin than the issuer's is refused unless listed explicitly.
// Real servers on 127.0.0.1 record what they receive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentials, TokenRequestError } from '../src/auth/token-provider.js';
import type { Origin } from './origin-servers.js';
import { json, origin } from './origin-servers.js';

let issuer: Origin;
let elsewhere: Origin;
let endpoint = '';
beforeAll(async () => {
  const token = (response: Parameters<typeof json>[0]) => json(response, { access_token: 'a-token', token_type: 'Bearer', expires_in: 300 });
  elsewhere = await origin((request, response) => (request.method === 'POST' ? token(response) : json(response, {})));
  issuer = await origin((request, response) => {
    if (request.path === '/.well-known/openid-configuration') return json(response, { issuer: issuer.url, token_endpoint: endpoint });
    token(response);
  });
});
afterAll(async () => {
  await issuer?.close();
  await elsewhere?.close();
});

const secret = { clientId: 'app', clientSecret: 'S3CRET-client-secret' };

describe('clientCredentials with an issuer', () => {
  it("refuses a token_endpoint on another origin (the secret never reaches it), naming what to do", async () => {
    endpoint = `${elsewhere.url}/token`;
    const error = await clientCredentials({ ...secret, issuer: issuer.url }).token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as Error).message).toContain(`another origin (${elsewhere.url})`);
    expect((error as Error).message).toContain('tokenEndpointOrigins');
    expect(elsewhere.seen).toEqual([]);
  });

  it('uses one on another origin when that origin is listed in tokenEndpointOrigins', async () => {
    endpoint = `${elsewhere.url}/token`;
    expect(await clientCredentials({ ...secret, issuer: issuer.url, tokenEndpointOrigins: [elsewhere.url] }).token()).toBe('a-token');
    expect(elsewhere.seen.map((r) => r.path)).toEqual(['/token']);
  });

  it("uses one on the issuer's own origin", async () => {
    endpoint = `${issuer.url}/token`;
    expect(await clientCredentials({ ...secret, issuer: issuer.url }).token()).toBe('a-token');
  });
});
