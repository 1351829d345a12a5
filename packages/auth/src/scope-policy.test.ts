import type { AuthorizeCall } from '@taskwire/core';
import { A2AError, authChallenge } from '@taskwire/core';
import { describe, expect, it } from 'vitest';
import { cardSecurity, withCardSecurity } from './card-security.js';
import { scopePolicy } from './scope-policy.js';

const call = (method: AuthorizeCall['method'], scopes: string[] | undefined, params: unknown = {}): AuthorizeCall => ({
  method,
  params,
  context: scopes ? { principal: { id: 'p', scopes } } : {},
});

const outcome = (run: () => void): string => {
  try {
    run();
    return 'allowed';
  } catch (error) {
    return A2AError.is(error) ? `${error.kind} ${error.metadata['scope'] ?? ''}`.trim() : String(error);
  }
};

describe('scopePolicy', () => {
  const policy = scopePolicy({ skills: { billing: ['billing:use'] } });
  const check = (c: AuthorizeCall) => outcome(() => void policy(c));

  it('needs tasks:read to read, tasks:write to send or cancel, tasks:push for push configs', () => {
    expect(check(call('GetTask', ['tasks:read']))).toBe('allowed');
    expect(check(call('SubscribeToTask', ['tasks:write']))).toBe('PermissionDenied tasks:read');
    expect(check(call('SendMessage', ['tasks:read'], { message: { metadata: { skillId: 'echo' } } }))).toBe('PermissionDenied tasks:write');
    expect(check(call('CancelTask', ['tasks:write']))).toBe('allowed');
    expect(check(call('CreateTaskPushNotificationConfig', ['tasks:read', 'tasks:write']))).toBe('PermissionDenied tasks:push');
    expect(check(call('GetExtendedAgentCard', []))).toBe('allowed');
  });

  it('an anonymous caller of a method that needs scopes is Unauthenticated, not PermissionDenied', () => {
    expect(check(call('ListTasks', undefined))).toBe('Unauthenticated');
  });

  it('a message to a skill also needs the skill scopes', () => {
    const toBilling = { message: { metadata: { skillId: 'billing' } } };
    expect(check(call('SendMessage', ['tasks:write'], toBilling))).toBe('PermissionDenied billing:use');
    expect(check(call('SendStreamingMessage', ['tasks:write', 'billing:use'], toBilling))).toBe('allowed');
    expect(check(call('SendMessage', ['tasks:write'], { message: { metadata: { skillId: 'echo' } } }))).toBe('allowed');
  });

  it('GetExtendedAgentCard needs an authenticated caller, though it needs no scope', () => {
    expect(check(call('GetExtendedAgentCard', undefined))).toBe('Unauthenticated');
  });

  it('a message naming no skill needs every guarded skill scope, or those of defaultSkill when it is set', () => {
    const noSkill = { message: { metadata: {} } };
    expect(check(call('SendMessage', ['tasks:write'], noSkill))).toBe('PermissionDenied billing:use');
    expect(check(call('SendMessage', ['tasks:write'], { message: { metadata: { skillId: 42 } } }))).toBe('PermissionDenied billing:use');
    expect(check(call('SendStreamingMessage', ['tasks:write', 'billing:use'], noSkill))).toBe('allowed');
    const withDefault = scopePolicy({ skills: { billing: ['billing:use'], chat: ['chat:use'] }, defaultSkill: 'chat' });
    expect(outcome(() => void withDefault(call('SendMessage', ['tasks:write'], noSkill)))).toBe('PermissionDenied chat:use');
    expect(outcome(() => void withDefault(call('SendMessage', ['tasks:write', 'chat:use'], noSkill)))).toBe('allowed');
    expect(outcome(() => void withDefault(call('SendMessage', ['tasks:write', 'chat:use'], { message: { metadata: { skillId: 'billing' } } })))).toBe('PermissionDenied billing:use');
  });

  it('the refusal carries the insufficient_scope challenge', () => {
    let error: unknown;
    try {
      void scopePolicy()(call('SendMessage', []));
    } catch (e) {
      error = e;
    }
    expect(A2AError.is(error) && authChallenge(error)).toBe('Bearer realm="a2a", error="insufficient_scope", scope="tasks:write"');
    expect(A2AError.is(error) && [error.httpStatus, error.grpcStatus, error.code]).toEqual([403, 'PERMISSION_DENIED', -32031]);
  });
});

describe('cardSecurity', () => {
  it('writes one scheme and one alternative requirement per accepted credential', () => {
    expect(cardSecurity({ oidc: { issuer: 'https://idp.example.com/', scopes: ['tasks:read'] }, bearer: true, apiKey: true, mtls: true })).toEqual({
      securitySchemes: {
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp.example.com/.well-known/openid-configuration' } },
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
        apiKey: { apiKeySecurityScheme: { location: 'header', name: 'x-api-key' } },
        mtls: { mtlsSecurityScheme: {} },
      },
      securityRequirements: [
        { schemes: { oidc: { list: ['tasks:read'] } } },
        { schemes: { bearer: { list: [] } } },
        { schemes: { apiKey: { list: [] } } },
        { schemes: { mtls: { list: [] } } },
      ],
    });
  });

  it('withCardSecurity announces the extended card when asked', () => {
    const card = { name: 'a', description: '', version: '1', capabilities: {}, supportedInterfaces: [], defaultInputModes: [], defaultOutputModes: [], skills: [] };
    expect(withCardSecurity(card as never, { bearer: true, extendedCard: true }).capabilities.extendedAgentCard).toBe(true);
  });
});
