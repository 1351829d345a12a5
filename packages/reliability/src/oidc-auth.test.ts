import type { AgentCard } from '@taskwire/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OidcHost } from './auth/oidc-principals.js';
import { EXTENDED_CARD_NAME, serveOidcPrincipals } from './auth/oidc-principals.js';
import { failureOf, sendText } from './auth/two-principals.js';
import type { Binding, ClosableTransport } from './support/transports.js';
import { BINDINGS, connectTransport } from './support/transports.js';

/** Opens a transport of `binding` with `headers`, runs `body`, closes it. */
async function using<T>(host: OidcHost, binding: Binding, headers: Record<string, string>, body: (t: ClosableTransport) => Promise<T>): Promise<T> {
  const transport = connectTransport(binding, host.urls, headers);
  try {
    return await body(transport);
  } finally {
    await transport.close();
  }
}

const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

describe('OIDC client-credentials tokens from oidc-provider, verified by jwtAuth, authorized by scopePolicy', () => {
  let host: OidcHost;
  beforeAll(async () => {
    host = await serveOidcPrincipals();
  });
  afterAll(async () => {
    await host?.close();
  });

  describe.each(BINDINGS)('over %s', (binding) => {
    it('a token with tasks:read and tasks:write sends, reads and lists; the principal is the token subject', async () => {
      await using(host, binding, await host.bearer('writer'), async (writer) => {
        const task = await sendText(writer, 'echo signed in');
        expect(task.status.state).toBe('TASK_STATE_COMPLETED');
        expect((await writer.unary('GetTask', { id: task.id })).id).toBe(task.id);
        expect((await writer.unary('ListTasks', {})).tasks.map((t) => t.id)).toContain(task.id);
        // Another subject (alice) does not see the writer's task.
        await using(host, binding, await host.bearer('alice'), async (alice) => {
          expect(await failureOf(alice.unary('GetTask', { id: task.id }))).toBe('TaskNotFound');
        });
        // The writer lacks tasks:push.
        expect(await failureOf(writer.unary('ListTaskPushNotificationConfigs', { taskId: task.id }))).toBe('PermissionDenied');
      });
    });

    it('a token with tasks:read only may read but not send, stream or cancel (PermissionDenied, not Unauthenticated)', async () => {
      await using(host, binding, await host.bearer('reader'), async (reader) => {
        expect((await reader.unary('ListTasks', {})).tasks).toEqual([]);
        expect(await failureOf(reader.unary('SendMessage', message('echo no')))).toBe('PermissionDenied');
        expect(await failureOf(reader.stream('SendStreamingMessage', message('echo no')))).toBe('PermissionDenied');
        expect(await failureOf(reader.unary('CancelTask', { id: crypto.randomUUID() }))).toBe('PermissionDenied');
        expect(await failureOf(reader.unary('GetTask', { id: crypto.randomUUID() }))).toBe('TaskNotFound');
      });
    });

    it('a forged token and no token are Unauthenticated', async () => {
      const token = (await host.bearer('alice')).authorization!;
      const forged = `${token.slice(0, -4)}${token.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
      await using(host, binding, { authorization: forged }, async (t) => expect(await failureOf(t.unary('ListTasks', {}))).toBe('Unauthenticated'));
      await using(host, binding, {}, async (t) => expect(await failureOf(t.unary('ListTasks', {}))).toBe('Unauthenticated'));
    });

    it('GetExtendedAgentCard serves the extended card to an authenticated caller', async () => {
      const card = await using(host, binding, await host.bearer('reader'), (t) => t.unary('GetExtendedAgentCard', {}));
      expect(card.name).toBe(EXTENDED_CARD_NAME);
      await using(host, binding, {}, async (t) => expect(await failureOf(t.unary('GetExtendedAgentCard', {}))).toBe('Unauthenticated'));
    });
  });

  it('the public card names the OpenID Connect scheme with the discovery URL, and announces the extended card', async () => {
    const card = (await (await fetch(host.urls.card)).json()) as AgentCard;
    expect(card.securitySchemes).toEqual({ oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${host.idp.issuer}/.well-known/openid-configuration` } } });
    expect(card.securityRequirements).toEqual([{ schemes: { oidc: { list: ['tasks:read', 'tasks:write'] } } }]);
    expect(card.capabilities.extendedAgentCard).toBe(true);
  });

  it('HTTP answers carry RFC 6750 challenges: 401 invalid_token with a description (no token echoed), 403 insufficient_scope with the scope', async () => {
    const forged = 'eyJhbGciOiJFUzI1NiIsImtpZCI6Im5vIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    for (const url of [`${host.urls.rest}/tasks`, host.urls.jsonRpc]) {
      const rpc = url === host.urls.jsonRpc;
      const init = (authorization: string) => ({
        method: rpc ? 'POST' : 'GET',
        headers: { authorization, 'content-type': 'application/json' },
        ...(rpc && { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: message('echo x') }) }),
      });
      const refused = await fetch(url, init(`Bearer ${forged}`));
      expect(refused.status).toBe(401);
      const challenge = refused.headers.get('www-authenticate')!;
      expect(challenge).toMatch(/^Bearer realm="a2a", error="invalid_token", error_description="[^"]+"$/);
      expect(challenge + (await refused.text())).not.toContain(forged);
      if (rpc) {
        const denied = await fetch(url, init((await host.bearer('reader')).authorization!));
        expect(denied.status).toBe(403);
        expect(denied.headers.get('www-authenticate')).toBe('Bearer realm="a2a", error="insufficient_scope", scope="tasks:write"');
        expect(((await denied.json()) as { error: { code: number } }).error.code).toBe(-32031);
      }
    }
    const rest = await fetch(`${host.urls.rest}/message:send`, {
      method: 'POST',
      headers: { ...(await host.bearer('reader')), 'content-type': 'application/json' },
      body: JSON.stringify(message('echo x')),
    });
    expect(rest.status).toBe(403);
    expect(rest.headers.get('www-authenticate')).toContain('error="insufficient_scope", scope="tasks:write"');
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe('PERMISSION_DENIED');
  });
});

describe('key rotation at the provider', () => {
  let host: OidcHost;
  beforeAll(async () => {
    // No cooldown between JWKS refetches for unknown kids, so a rotation is picked up by the very next token.
    host = await serveOidcPrincipals({ cooldownMs: 0 });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('tokens signed with a new key are accepted without restarting the server; tokens of a retired key are refused', async () => {
    const before = await host.bearer('alice');
    const oldKid = host.idp.currentKid;
    await using(host, 'JSON-RPC', before, async (t) => expect((await sendText(t, 'echo before')).status.state).toBe('TASK_STATE_COMPLETED'));
    const fetchesBefore = host.idp.jwksFetches;
    const newKid = await host.idp.rotateKeys(true);
    expect(newKid).not.toBe(oldKid);
    const after = await host.bearer('alice');
    for (const binding of BINDINGS) {
      await using(host, binding, after, async (t) => expect((await sendText(t, `echo after on ${binding}`)).status.state).toBe('TASK_STATE_COMPLETED'));
    }
    expect(host.idp.jwksFetches).toBeGreaterThan(fetchesBefore);
    await using(host, 'HTTP+JSON', before, async (t) => expect(await failureOf(t.unary('ListTasks', {}))).toBe('Unauthenticated'));
  });
});
