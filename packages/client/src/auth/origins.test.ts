import { describe, expect, it } from 'vitest';
import { CredentialOriginError, CredentialScope, credentialHeaderNames, originOf } from './origins.js';
import { fetchInScope } from './redirects.js';

describe('originOf and CredentialScope', () => {
  it('reads ws(s) as http(s) and a bare gRPC host:port as plaintext http', () => {
    expect(originOf('wss://agent.example/a2a/ws')).toBe('https://agent.example');
    expect(originOf('ws://127.0.0.1:8080/a2a/ws')).toBe('http://127.0.0.1:8080');
    expect(originOf('127.0.0.1:50051')).toBe('http://127.0.0.1:50051');
    expect(originOf('grpc://127.0.0.1:50051')).toBe('http://127.0.0.1:50051');
    expect(originOf('not a url')).toBeUndefined();
  });

  it('allows the given origin and trusted ones only: scheme, host and port all count', () => {
    const scope = new CredentialScope('https://agent.example/card.json', ['127.0.0.1:50051']);
    expect(scope.allows('https://agent.example/a2a/jsonrpc')).toBe(true);
    expect(scope.allows('wss://agent.example/a2a/ws')).toBe(true);
    expect(scope.allows('http://agent.example/a2a/jsonrpc')).toBe(false);
    expect(scope.allows('agent.example:443')).toBe(false);
    expect(scope.allows('https://agent.example:8443')).toBe(false);
    expect(scope.allows('127.0.0.1:50051')).toBe(true);
    expect(scope.refusal('http://agent.example/x', 'A call').message).toContain('over plaintext');
    expect(() => new CredentialScope('https://agent.example', ['::nonsense'])).toThrow(/trustedOrigins/);
  });

  it('counts every header but the protocol ones as a credential', () => {
    expect(credentialHeaderNames({ 'A2A-Version': '1.0', traceparent: 't', 'X-Api-Key': 'k', Cookie: 'c' })).toEqual(['x-api-key', 'cookie']);
  });
});

describe('fetchInScope where redirects are opaque (browsers)', () => {
  const opaque = { type: 'opaqueredirect', status: 0, headers: new Headers(), body: null } as unknown as Response;

  it('refuses a request with credentials, and sends one without again following redirects', async () => {
    const calls: RequestInit[] = [];
    const stub: typeof fetch = async (_url, init) => {
      calls.push(init!);
      return init?.redirect === 'manual' ? opaque : new Response('{}');
    };
    const scope = new CredentialScope('https://agent.example');
    await expect(fetchInScope(stub, 'https://agent.example/a', { method: 'GET', headers: { 'x-api-key': 'k' } }, scope, 'A call')).rejects.toBeInstanceOf(CredentialOriginError);
    expect(calls.map((c) => c.redirect)).toEqual(['manual']);
    calls.length = 0;
    const response = await fetchInScope(stub, 'https://agent.example/a', { method: 'GET', headers: { accept: 'application/json' } }, scope, 'A call');
    expect(response.status).toBe(200);
    expect(calls.map((c) => c.redirect)).toEqual(['manual', 'follow']);
  });
});
