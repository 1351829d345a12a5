import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK, JWTPayload } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider, { errors } from 'oidc-provider';

/** A client the test provider knows: it gets client-credentials tokens with (at most) `scopes`. */
export interface TestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
}

/** Options of {@link startTestIdp}. */
export interface TestIdpOptions {
  /** The resource indicator (audience) of the agent tokens are issued for. */
  readonly audience: string;
  readonly clients: readonly TestClient[];
  /** Lifetime of access tokens, in seconds (default 300). */
  readonly tokenTtlSeconds?: number;
  /** Port on 127.0.0.1 (default 0: a free one). */
  readonly port?: number;
}

/** A real OpenID provider (`oidc-provider`) on 127.0.0.1, for tests and local loops. */
export interface TestIdp {
  readonly issuer: string;
  readonly tokenUrl: string;
  /** How many times the JWKS was fetched. */
  readonly jwksFetches: number;
  /** Gets an access token (a JWT for `audience`) for `client` with the client-credentials grant. */
  token(client: TestClient, scopes?: readonly string[]): Promise<string>;
  /** Makes a new signing key, published first and used for new tokens; the old keys stay published unless `dropOld`. */
  rotateKeys(dropOld?: boolean): Promise<string>;
  /** The kid of the key signing new tokens. */
  readonly currentKid: string;
  close(): Promise<void>;
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: 'ES256', use: 'sig' };
}

/**
 * Starts `oidc-provider` on an ephemeral port of 127.0.0.1, issuing JWT
 * access tokens (ES256, RFC 9068 `at+jwt`) for `audience` with the
 * client-credentials grant. Key rotation swaps in a provider with the new
 * key set behind the same address, as a provider rolling its keys does.
 */
export async function startTestIdp(options: TestIdpOptions): Promise<TestIdp> {
  let keys: JWK[] = [await newKey()];
  let jwksFetches = 0;
  let provider: Provider | undefined;
  let handler: ReturnType<Provider['callback']> | undefined;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) jwksFetches++;
    handler!(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const allScopes = [...new Set(options.clients.flatMap((c) => c.scopes))];
  const build = () => {
    provider = new Provider(issuer, {
      clients: options.clients.map((c) => ({
        client_id: c.clientId,
        client_secret: c.clientSecret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: c.scopes.join(' '),
        id_token_signed_response_alg: 'ES256',
      })),
      jwks: { keys: keys as never },
      scopes: ['openid', ...allScopes],
      ttl: { ClientCredentials: options.tokenTtlSeconds ?? 300 },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => options.audience,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource) => {
            if (resource !== options.audience) throw new errors.InvalidTarget();
            return { scope: allScopes.join(' '), audience: resource, accessTokenTTL: options.tokenTtlSeconds ?? 300, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
          },
        },
      },
    });
    handler = provider.callback();
  };
  build();
  const tokenUrl = `${issuer}/token`;
  return {
    issuer,
    tokenUrl,
    get jwksFetches() {
      return jwksFetches;
    },
    get currentKid() {
      return keys[0]!.kid!;
    },
    async token(client, scopes = client.scopes) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', scope: scopes.join(' '), resource: options.audience });
      const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
      const response = await fetch(tokenUrl, { method: 'POST', body, headers: { authorization: `Basic ${basic}` } });
      const answer = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!answer.access_token) throw new Error(`The test provider refused a token: ${answer.error} ${answer.error_description ?? ''}`);
      return answer.access_token;
    },
    async rotateKeys(dropOld = false) {
      const key = await newKey();
      keys = dropOld ? [key] : [key, ...keys];
      build();
      return key.kid!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Options of {@link startTestIssuer}. */
export interface TestIssuerOptions {
  /** The `jwks_uri` its discovery document names, from its own base URL (default `<issuer>/jwks`). */
  readonly jwksUri?: (issuer: string) => string;
}

/**
 * A bare token issuer on 127.0.0.1 for tests that need tokens no real
 * provider would issue (no `exp`, a short `exp`): it serves an OpenID
 * configuration and a JWKS, and signs whatever claims it is given.
 */
export interface TestIssuer {
  readonly issuer: string;
  /** The JWKS it serves (its path is `/jwks` on any host name that reaches it). */
  readonly jwksUrl: string;
  /** How many times the JWKS was fetched. */
  readonly jwksFetches: number;
  /** An ES256 `at+jwt` with `iss` = the issuer, `iat` = now, and `claims` (add `exp` yourself, or leave it out). */
  sign(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

/** Starts a {@link TestIssuer} on an ephemeral port of 127.0.0.1 (jose keys, node:http). */
export async function startTestIssuer(options: TestIssuerOptions = {}): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: crypto.randomUUID(), alg: 'ES256', use: 'sig' };
  let jwksFetches = 0;
  let issuer = '';
  const server = createServer((req, res) => {
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/openid-configuration') return json({ issuer, jwks_uri: options.jwksUri?.(issuer) ?? `${issuer}/jwks` });
    if (req.url === '/jwks') return (jwksFetches++, json({ keys: [jwk] }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    get jwksFetches() {
      return jwksFetches;
    },
    sign: (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' }).setIssuer(issuer).setIssuedAt().sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
