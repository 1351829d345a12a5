import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenErrorCode } from '@taskwire/auth';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT } from 'jose';

/** How the hostile issuer's JWKS endpoint behaves. */
export type JwksMode = 'ok' | 'slow' | 'garbage' | 'error';

/** An issuer under the test's control: its keys, a JWKS endpoint whose behaviour can be chosen, and a fetch counter. */
export interface HostileIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: string;
  mode: JwksMode;
  readonly fetches: number;
  /** A token signed with the published ES256 key, with `claims` over valid defaults. */
  sign(claims?: JWTPayload, header?: { kid?: string }): Promise<string>;
  /** The published RSA key's public half, as PEM (what an HS256 confusion attack uses as its secret). */
  readonly rsaPublicPem: string;
  close(): Promise<void>;
}

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Starts an issuer with an ES256 and an RS256 key published at `/jwks` on 127.0.0.1; `slow` answers after `slowMs`. */
export async function startHostileIssuer(slowMs = 2_000): Promise<HostileIssuer> {
  const es = await generateKeyPair('ES256', { extractable: true });
  const rs = await generateKeyPair('RS256', { extractable: true });
  const keys: JWK[] = [
    { ...(await exportJWK(es.publicKey)), kid: 'es-1', alg: 'ES256', use: 'sig' },
    { ...(await exportJWK(rs.publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' },
  ];
  let fetches = 0;
  const pending = new Set<NodeJS.Timeout>();
  const state = { mode: 'ok' as JwksMode };
  const server = createServer((req, res) => {
    fetches++;
    if (state.mode === 'error') return void res.writeHead(503).end('down');
    if (state.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": "not a key set"');
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    if (state.mode === 'ok') return answer();
    const timer = setTimeout(() => {
      pending.delete(timer);
      answer();
    }, slowMs);
    pending.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${base}/issuer`;
  const audience = 'https://agent.taskwire.test/hostile';
  return {
    issuer,
    audience,
    jwksUri: `${base}/jwks`,
    get mode() {
      return state.mode;
    },
    set mode(mode) {
      state.mode = mode;
    },
    get fetches() {
      return fetches;
    },
    rsaPublicPem: await exportSPKI(rs.publicKey as CryptoKey),
    sign: (claims = {}, header = {}) => {
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: issuer, aud: audience, sub: 'mallory', iat: now, exp: now + 300, scope: 'tasks:read tasks:write', ...claims };
      return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid: header.kid ?? 'es-1', typ: 'at+jwt' }).sign(es.privateKey);
    },
    async close() {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One hostile token and the refusal code it must get. */
export interface TokenCase {
  readonly name: string;
  readonly token: string;
  readonly expected: TokenErrorCode;
}

/** An HS256 JWT with `secret` as the HMAC key (for the algorithm-confusion case). */
function hs256(payload: JWTPayload, header: Record<string, unknown>, secret: string): string {
  const input = `${b64url({ alg: 'HS256', typ: 'JWT', ...header })}.${b64url(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** The hostile corpus against `issuer`, with `maxTokenBytes` the verifier's size limit. */
export async function hostileTokens(issuer: HostileIssuer, maxTokenBytes: number): Promise<TokenCase[]> {
  const now = Math.floor(Date.now() / 1000);
  const valid = await issuer.sign();
  const [head, body] = valid.split('.');
  const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as JWTPayload;
  const tampered = `${head}.${b64url({ ...claims, sub: 'alice' })}.${valid.split('.')[2]}`;
  return [
    { name: 'expired an hour ago', token: await issuer.sign({ exp: now - 3600, iat: now - 7200 }), expected: 'expired' },
    { name: 'no exp (valid forever)', token: await issuer.sign({ exp: undefined }), expected: 'missing_expiry' },
    { name: 'not valid for another hour (nbf)', token: await issuer.sign({ nbf: now + 3600 }), expected: 'not_yet_valid' },
    { name: 'issued an hour in the future (iat)', token: await issuer.sign({ iat: now + 3600, exp: now + 7200 }), expected: 'issued_in_future' },
    { name: 'another issuer', token: await issuer.sign({ iss: 'https://evil.example.com' }), expected: 'wrong_issuer' },
    { name: 'another audience', token: await issuer.sign({ aud: 'https://some-other-agent.example.com' }), expected: 'wrong_audience' },
    { name: 'alg none', token: `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`, expected: 'algorithm_not_allowed' },
    { name: 'HS256 signed with the RSA public key', token: hs256(claims, { kid: 'rs-1' }, issuer.rsaPublicPem), expected: 'algorithm_not_allowed' },
    { name: 'unknown kid', token: await issuer.sign({}, { kid: 'no-such-key' }), expected: 'unknown_key' },
    { name: 'tampered payload (sub changed)', token: tampered, expected: 'bad_signature' },
    { name: 'signature of another token', token: `${head}.${body}.${(await issuer.sign({ sub: 'x' })).split('.')[2]}`, expected: 'bad_signature' },
    { name: 'no subject', token: await issuer.sign({ sub: '' }), expected: 'missing_subject' },
    { name: 'not a JWT', token: 'definitely-not-a-jwt', expected: 'malformed' },
    { name: 'header not JSON', token: `${b64url('{{{')}.${body}.${valid.split('.')[2]}`, expected: 'malformed' },
    { name: `oversized (${maxTokenBytes + 2048} bytes)`, token: await issuer.sign({ pad: 'x'.repeat(maxTokenBytes + 2048) }), expected: 'too_large' },
  ];
}
