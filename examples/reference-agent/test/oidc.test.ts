// The reference agent with --oidc-issuer/--audience, against a real OpenID provider (oidc-provider) on 127.0.0.1.
import type { TestIdp } from '@taskwire/auth/testing';
import { startTestIdp } from '@taskwire/auth/testing';
import { clientCredentials, createClient } from '@taskwire/client';
import { A2AError } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOptions } from '../src/options.js';
import type { RunningAgent } from '../src/serve-all.js';
import { serveAll } from '../src/serve-all.js';

const AUDIENCE = 'http://127.0.0.1/reference-agent';
const DEMO = { clientId: 'demo', clientSecret: 'demo-secret-0123456789', scopes: ['tasks:read', 'tasks:write'] };

let idp: TestIdp;
let agent: RunningAgent;
beforeAll(async () => {
  idp = await startTestIdp({ audience: AUDIENCE, clients: [DEMO] });
  const options = parseOptions(['--store', 'memory', '--port', '0', '--grpc-port', '0', '--oidc-issuer', idp.issuer, '--audience', AUDIENCE]);
  if (options === 'help') throw new Error('unexpected help');
  agent = await serveAll(options);
});
afterAll(async () => {
  await agent?.close();
  await idp?.close();
});

describe('the reference agent with --oidc-issuer and --audience', () => {
  it('says so in its card, refuses callers without a token and serves callers with one', async () => {
    const card = (await (await fetch(agent.urls.card)).json()) as { securitySchemes?: unknown };
    expect(card.securitySchemes).toEqual({ oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${idp.issuer}/.well-known/openid-configuration` } } });
    const anonymous = await createClient(agent.baseUrl);
    const refusal = await anonymous.listTasks({}).catch((e: unknown) => e);
    expect(A2AError.is(refusal) && refusal.kind).toBe('Unauthenticated');
    await anonymous.close();
    const client = await createClient(agent.baseUrl, { auth: clientCredentials({ ...DEMO, issuer: idp.issuer, resource: AUDIENCE }) });
    const sent = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo signed in' }] } });
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    await client.close();
  });

  it('takes both options or neither, and not with --api-key', () => {
    expect(() => parseOptions(['--oidc-issuer', 'https://idp.example.com'])).toThrow('--oidc-issuer and --audience go together');
    expect(() => parseOptions(['--oidc-issuer', 'https://i.example.com', '--audience', 'a', '--api-key', 'k'])).toThrow('not both');
  });
});
