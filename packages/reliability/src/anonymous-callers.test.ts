import { jwtAuth, SCOPES, scopePolicy } from '@taskwire/auth';
import type { TestIdp } from '@taskwire/auth/testing';
import { startTestIdp } from '@taskwire/auth/testing';
import { referenceAgentCard } from '@taskwire/reference-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TwoPrincipalHost } from './auth/two-principals.js';
import { failureOf, serveTwoPrincipals } from './auth/two-principals.js';
import type { Binding } from './support/transports.js';
import { BINDINGS, connectTransport } from './support/transports.js';

const AUDIENCE = 'https://agent.taskwire.test/anonymous';
const PLAIN = { clientId: 'plain', clientSecret: 'secret-of-plain-0123456789', scopes: [SCOPES.read, SCOPES.write] };
const SKILLED = { clientId: 'skilled', clientSecret: 'secret-of-skilled-0123456789', scopes: [SCOPES.read, SCOPES.write, 'echo:use'] };
const EXTENDED = { ...referenceAgentCard([]), name: 'Reference agent (extended, for callers it knows)' };

let idp: TestIdp;
/** jwtAuth with `required: false` (anonymous callers allowed) and no authorize hook: only the service guards the extended card. */
let open: TwoPrincipalHost;
/** The same policy with a scopePolicy guarding the reference agent's echo skill. */
let guarded: TwoPrincipalHost;
beforeAll(async () => {
  idp = await startTestIdp({ audience: AUDIENCE, clients: [PLAIN, SKILLED] });
  const auth = { ...jwtAuth({ issuer: idp.issuer, audience: AUDIENCE }), required: false };
  open = await serveTwoPrincipals({ auth, extendedCard: EXTENDED });
  guarded = await serveTwoPrincipals({ auth, extendedCard: EXTENDED, authorize: scopePolicy({ skills: { echo: ['echo:use'] } }) });
});
afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()]);
  await idp?.close();
});

async function using<T>(host: TwoPrincipalHost, binding: Binding, token: string | undefined, body: (t: ReturnType<typeof connectTransport>) => Promise<T>): Promise<T> {
  const transport = connectTransport(binding, host.urls, token ? { authorization: `Bearer ${token}` } : {});
  try {
    return await body(transport);
  } finally {
    await transport.close();
  }
}

const message = (metadata?: Record<string, unknown>) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'echo hi' }], ...(metadata && { metadata }) } });

describe.each(BINDINGS)('an auth policy that allows anonymous callers, over %s', (binding) => {
  it('GetExtendedAgentCard refuses an anonymous caller (Unauthenticated) and serves an authenticated one', async () => {
    expect(await using(open, binding, undefined, (t) => failureOf(t.unary('GetExtendedAgentCard', {})))).toBe('Unauthenticated');
    const card = await using(open, binding, await idp.token(PLAIN), (t) => t.unary('GetExtendedAgentCard', {}));
    expect(card.name).toBe(EXTENDED.name);
  });

  it('a message that names no skill needs the guarded skill scope (no bypass by leaving metadata.skillId out)', async () => {
    const plain = await idp.token(PLAIN);
    expect(await using(guarded, binding, plain, (t) => failureOf(t.unary('SendMessage', message())))).toBe('PermissionDenied');
    expect(await using(guarded, binding, plain, (t) => failureOf(t.unary('SendMessage', message({ skillId: 'echo' }))))).toBe('PermissionDenied');
    const sent = await using(guarded, binding, await idp.token(SKILLED), (t) => t.unary('SendMessage', message()));
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
