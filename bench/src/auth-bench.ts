/**
 * Issue 23's benchmark: what `jwtAuth` costs per request once the issuer's
 * key is cached. Part 1 verifies one token N times (ES256 and RS256, the
 * whole `authenticate` hook: header parsing, JWS verification, claim
 * checks, principal). Part 2 serves JSON-RPC ListTasks with no auth, an API
 * key and jwtAuth (ES256, RS256) and drives it from this process with
 * `fetch` (CONCURRENCY in flight) to put the verifier's cost beside a whole
 * request's.
 *
 *   cd bench && npx -y pnpm@10.34.9 exec tsx src/auth-bench.ts [N] [REQUESTS] [CONCURRENCY] [ROUNDS]
 *
 *   (after `npx -y pnpm@10.34.9 -r --filter "./packages/**" build`: it measures the built packages)
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtAuth } from '@taskwire/auth';
import type { AuthPolicy } from '@taskwire/core';
import { apiKeyAuth, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent } from '@taskwire/reference-agent';
import { serveA2A } from '@taskwire/server-http';
import type { JWK } from 'jose';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const N = Number(process.argv[2] ?? 20_000);
const REQUESTS = Number(process.argv[3] ?? 5_000);
const CONCURRENCY = Number(process.argv[4] ?? 16);
const ROUNDS = Number(process.argv[5] ?? 3);
const ISSUER = 'https://issuer.bench.test';
const AUDIENCE = 'https://agent.bench.test';

/** A JWKS endpoint on 127.0.0.1 publishing an ES256 and an RS256 key, and a token signed with each. */
async function issuer() {
  const keys: JWK[] = [];
  const tokens: Record<'ES256' | 'RS256', string> = { ES256: '', RS256: '' };
  for (const alg of ['ES256', 'RS256'] as const) {
    const pair = await generateKeyPair(alg);
    keys.push({ ...(await exportJWK(pair.publicKey)), kid: alg, alg, use: 'sig' });
    tokens[alg] = await new SignJWT({ scope: 'tasks:read tasks:write' })
      .setProtectedHeader({ alg, kid: alg, typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('bench-client')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(pair.privateKey);
  }
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return { jwksUri, tokens, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Microseconds per `authenticate` call with the key cached. */
async function verifierCost(auth: AuthPolicy, token: string): Promise<number> {
  const request = { headers: { authorization: `Bearer ${token}` } };
  for (let i = 0; i < 500; i++) await auth.authenticate(request); // warm-up: the JWKS fetch, JIT
  const started = performance.now();
  for (let i = 0; i < N; i++) await auth.authenticate(request);
  return ((performance.now() - started) * 1000) / N;
}

/** Requests per second and mean µs per request of JSON-RPC ListTasks against `auth`. */
async function requestCost(auth: AuthPolicy | undefined, headers: Record<string, string>) {
  const service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent });
  const server = await serveA2A({ service, ...(auth && { auth }) });
  const url = `${server.url}/a2a/jsonrpc`;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: 1 } });
  const call = async () => {
    const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers } });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  const drive = async (count: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await call();
    }));
  };
  await drive(500);
  const started = performance.now();
  await drive(REQUESTS);
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  await service.close();
  return { rate: REQUESTS / seconds, usPerRequest: (seconds * 1e6) / REQUESTS };
}

const keys = await issuer();
try {
  const jwt = () => jwtAuth({ issuer: ISSUER, audience: AUDIENCE, jwksUri: keys.jwksUri });
  const rows: string[] = [];
  for (const alg of ['ES256', 'RS256'] as const) rows.push(`| jwtAuth ${alg} | ${(await verifierCost(jwt(), keys.tokens[alg])).toFixed(1)} |`);
  const remembering = jwtAuth({ issuer: ISSUER, audience: AUDIENCE, jwksUri: keys.jwksUri, verifiedCacheMs: 60_000 });
  rows.push(`| jwtAuth ES256, verifiedCacheMs 60 s (same token) | ${(await verifierCost(remembering, keys.tokens.ES256)).toFixed(2)} |`);
  rows.push(`| apiKeyAuth | ${(await verifierCost({ authenticate: apiKeyAuth({ k: 'p' }) }, 'k')).toFixed(2)} |`);
  console.log(`\nVerifier cost, key cached: ${N.toLocaleString()} authenticate calls each (node ${process.version})\n`);
  console.log('| hook | µs per call |\n| --- | ---: |');
  console.log(rows.join('\n'));

  const variants: [string, AuthPolicy | undefined, Record<string, string>][] = [
    ['no auth', undefined, {}],
    ['apiKeyAuth', { authenticate: apiKeyAuth({ k: 'p' }) }, { 'x-api-key': 'k' }],
    ['jwtAuth ES256', jwt(), { authorization: `Bearer ${keys.tokens.ES256}` }],
    ['jwtAuth RS256', jwt(), { authorization: `Bearer ${keys.tokens.RS256}` }],
    ['jwtAuth ES256, verifiedCacheMs 60 s', remembering, { authorization: `Bearer ${keys.tokens.ES256}` }],
  ];
  console.log(`\nJSON-RPC ListTasks over HTTP, ${REQUESTS.toLocaleString()} requests, ${CONCURRENCY} in flight, client and server in this process\n`);
  // Interleaved rounds, best of each: the machine's other load moves single runs a lot.
  const best = new Map<string, { rate: number; usPerRequest: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, auth, headers] of variants) {
      const result = await requestCost(auth, headers);
      if (result.rate > (best.get(name)?.rate ?? 0)) best.set(name, result);
    }
  }
  console.log(`| auth | requests/s (best of ${ROUNDS}) | µs per request |\n| --- | ---: | ---: |`);
  for (const [name, { rate, usPerRequest }] of best) console.log(`| ${name} | ${Math.round(rate).toLocaleString()} | ${usPerRequest.toFixed(0)} |`);
} finally {
  await keys.close();
}
