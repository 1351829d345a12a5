// Client token providers against a real OpenID provider (oidc-provider) and a server verifying its JWTs on every binding.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cardSecurity, jwtAuth, scopePolicy } from '@taskwire/auth';
import type { TestIdp } from '@taskwire/auth/testing';
import { startTestIdp } from '@taskwire/auth/testing';
import { A2AError, createMemoryTaskStore, TaskService } from '@taskwire/core';
import { referenceAgent, referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentials, staticToken, tokenCallback, TokenRequestError } from '../src/auth/token-provider.js';
import { EXIT, main } from '../src/cli/main.js';
import { createClient } from '../src/create-client.js';
import type { Served } from './serve-reference.js';
import { BINDINGS, NODE_TRANSPORTS, serveEverywhere } from './serve-reference.js';

const AUDIENCE = 'https://agent.taskwire.test/client';
const APP = { clientId: 'app', clientSecret: 'app-secret-0123456789abcdef', scopes: ['tasks:read', 'tasks:write'] };

let idp: TestIdp;
let service: TaskService;
let served: Served;
beforeAll(async () => {
  idp = await startTestIdp({ audience: AUDIENCE, clients: [APP] });
  const card = { ...referenceAgentCard([{ url: 'memory://x', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]), ...cardSecurity({ oidc: { issuer: idp.issuer, scopes: APP.scopes } }) };
  service = new TaskService({ store: createMemoryTaskStore(), agent: referenceAgent, card, authorize: scopePolicy() });
  served = await serveEverywhere(service, { auth: jwtAuth({ issuer: idp.issuer, audience: AUDIENCE }) });
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await idp?.close();
});

/** A fetch that counts the requests to the provider's token endpoint. */
function countingFetch(): { fetch: typeof fetch; readonly tokenRequests: number } {
  let tokenRequests = 0;
  return {
    fetch: (input, init) => {
      if (String(input) === idp.tokenUrl) tokenRequests++;
      return fetch(input, init);
    },
    get tokenRequests() {
      return tokenRequests;
    },
  };
}

const echo = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: `echo ${text}` }] } });

describe('clientCredentials', () => {
  it('discovers the token endpoint from the issuer, caches the token, and shares one request among concurrent callers', async () => {
    const counted = countingFetch();
    const provider = clientCredentials({ ...APP, issuer: idp.issuer, resource: AUDIENCE, fetch: counted.fetch });
    const tokens = await Promise.all(Array.from({ length: 5 }, () => provider.token()));
    expect(new Set(tokens).size).toBe(1);
    expect(await provider.token()).toBe(tokens[0]);
    expect(counted.tokenRequests).toBe(1);
    expect(await provider.token({ fresh: true })).not.toBe(tokens[0]);
    expect(counted.tokenRequests).toBe(2);
  });

  it('renews the token once the clock reaches refreshBeforeMs before its expiry', async () => {
    let now = 1_000_000;
    const counted = countingFetch();
    const provider = clientCredentials({ ...APP, tokenUrl: idp.tokenUrl, resource: AUDIENCE, fetch: counted.fetch, refreshBeforeMs: 60_000, clock: { now: () => now, sleep: async () => {} } });
    const first = await provider.token();
    now += 239_000; // the provider's tokens live 300 s: renewal is due at 240 s
    expect(await provider.token()).toBe(first);
    now += 1_000;
    expect(await provider.token()).not.toBe(first);
    expect(counted.tokenRequests).toBe(2);
  });

  it('a refused client gets a TokenRequestError naming the endpoint and the OAuth error, never the secret', async () => {
    const provider = clientCredentials({ clientId: 'app', clientSecret: 'not-the-secret-xyz', tokenUrl: idp.tokenUrl });
    const error = await provider.token().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as Error).message).toContain(idp.tokenUrl);
    expect((error as Error).message).toContain('invalid_client');
    expect((error as Error).message).not.toContain('not-the-secret-xyz');
  });
});

describe.each(BINDINGS)('createClient with auth over %s', (binding) => {
  it('client credentials tokens authenticate every call', async () => {
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], auth: clientCredentials({ ...APP, issuer: idp.issuer, resource: AUDIENCE }) });
    try {
      expect(client.interface?.protocolBinding).toBe(binding);
      const sent = await client.sendMessage(echo('with a token'));
      expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await client.listTasks({})).tasks.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('without credentials, the refusal names what the card requires', async () => {
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS });
    try {
      const error = await client.listTasks({}).catch((e: unknown) => e);
      expect(A2AError.is(error) && error.kind).toBe('Unauthenticated');
      expect((error as Error).message).toContain(`oidc (OpenID Connect, discovery at ${idp.issuer}/.well-known/openid-configuration; scopes tasks:read tasks:write)`);
    } finally {
      await client.close();
    }
  });
});

describe.each(BINDINGS.filter((b) => b !== BINDINGS[3]))('a refused token is replaced once over %s', (binding) => {
  it('the call is sent again with a fresh token and succeeds', async () => {
    const asked: boolean[] = [];
    const good = await idp.token(APP);
    const provider = tokenCallback((fresh) => {
      asked.push(fresh);
      return fresh ? good : 'expired.or.garbage';
    });
    const client = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], auth: provider, retry: false });
    try {
      expect((await client.listTasks({})).tasks).toBeDefined();
      expect(asked).toEqual([false, true]);
      const refused = await createClient(served.url, { preferred: [binding], transports: NODE_TRANSPORTS, trustedOrigins: [served.grpcUrl], auth: staticToken('still.garbage.token') });
      expect(await refused.listTasks({}).catch((e: unknown) => A2AError.is(e) && e.kind)).toBe('Unauthenticated');
      await refused.close();
    } finally {
      await client.close();
    }
  });
});

describe('the taskwire CLI', () => {
  async function cli(argv: readonly string[], env: Record<string, string> = {}) {
    let out = '';
    let err = '';
    const home = await mkdtemp(join(tmpdir(), 'taskwire-cli-auth-'));
    try {
      const code = await main(argv, { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env, home });
      return { code, out, err };
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  it('--client-id with the secret from TASKWIRE_CLIENT_SECRET and --token-url gets a token and sends', async () => {
    const run = await cli(['send', served.url, 'echo', 'from', 'the', 'cli', '--client-id', APP.clientId, '--token-url', idp.tokenUrl, '--resource', AUDIENCE, '--scope', 'tasks:read tasks:write'], {
      TASKWIRE_CLIENT_SECRET: APP.clientSecret,
    });
    expect(run.err).toBe('');
    expect(run.out).toContain('from the cli');
    expect(run.code).toBe(EXIT.ok);
  });

  it('--token sends a bearer token; a refused secret is never echoed', async () => {
    const ok = await cli(['list', served.url, '--token', await idp.token(APP)]);
    expect(ok.code).toBe(EXIT.ok);
    const refused = await cli(['list', served.url, '--client-id', APP.clientId, '--issuer', idp.issuer], { TASKWIRE_CLIENT_SECRET: 'wrong-secret-123456' });
    expect(refused.code).not.toBe(EXIT.ok);
    expect(refused.err).toContain('invalid_client');
    expect(refused.err + refused.out).not.toContain('wrong-secret-123456');
    const missing = await cli(['list', served.url, '--client-id', APP.clientId, '--token-url', idp.tokenUrl]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.err).toContain('set TASKWIRE_CLIENT_SECRET');
  });

  it('without credentials, says which scheme the card requires', async () => {
    const run = await cli(['list', served.url]);
    expect(run.code).toBe(EXIT.agentFailure);
    expect(run.err).toContain('requires credentials and none is configured: it accepts oidc (OpenID Connect');
  });
});
