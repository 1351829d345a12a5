import { describe, expect, it } from 'vitest';
import type { AgentCard } from '../schema/index.js';
import { keyPairFor, realisticCard } from './card-signing-test-kit.js';
import { base64UrlDecode, base64UrlEncode, type AgentCardSigningAlg } from './jws-algorithms.js';
import { signAgentCard } from './sign-card.js';
import { verifyAgentCard, type AgentCardKeyLookup } from './verify-card.js';

const decodeJson = (text: string): unknown => JSON.parse(new TextDecoder().decode(base64UrlDecode(text)));
const only = (kid: string, key: CryptoKey | JsonWebKey): AgentCardKeyLookup => (header) => (header.kid === kid ? key : undefined);
const encodeJson = (value: unknown) => base64UrlEncode(new TextEncoder().encode(JSON.stringify(value)));

describe('signAgentCard / verifyAgentCard', () => {
  const algs: AgentCardSigningAlg[] = ['ES256', 'ES384', 'ES512', 'RS256', 'PS256', 'PS512', 'EdDSA', 'Ed25519'];
  it.each(algs)('%s: a signed card verifies, with the protected header the spec describes', async (alg) => {
    const { privateKey, publicKey } = await keyPairFor(alg);
    const signed = await signAgentCard(realisticCard(), { privateKey, alg, kid: 'k1', jku: 'https://agent.example.com/jwks.json' });
    expect(signed.signatures).toHaveLength(1);
    expect(decodeJson(signed.signatures![0]!.protected)).toEqual({ alg, typ: 'JOSE', kid: 'k1', jku: 'https://agent.example.com/jwks.json' });
    expect(await verifyAgentCard(signed, { keys: only('k1', publicKey) })).toEqual({ verified: true, kid: 'k1', alg, index: 0, reasons: [] });
    const jwk = await crypto.subtle.exportKey('jwk', publicKey);
    expect((await verifyAgentCard(signed, { keys: async () => jwk })).verified).toBe(true);
  });

  it('ES256 signatures are JOSE form: 64 raw bytes, and the header order is alg, typ, kid', async () => {
    const { privateKey } = await keyPairFor('ES256');
    const signed = await signAgentCard(realisticCard(), { privateKey, alg: 'ES256', kid: 'key-1', header: { note: 'hi' } });
    const [entry] = signed.signatures!;
    expect(base64UrlDecode(entry!.signature)).toHaveLength(64);
    expect(new TextDecoder().decode(base64UrlDecode(entry!.protected))).toBe('{"alg":"ES256","typ":"JOSE","kid":"key-1"}');
    expect(entry!.header).toEqual({ note: 'hi' });
  });

  describe('a changed card fails', () => {
    const changes: Array<[string, (card: AgentCard) => void]> = [
      ['name', (c) => void (c.name = 'Evil Agent')],
      ['an interface URL', (c) => void (c.supportedInterfaces[0]!.url = 'https://evil.example.com')],
      ['a capability', (c) => void (c.capabilities.pushNotifications = true)],
      ['a skill tag', (c) => void c.skills[0]!.tags.push('admin')],
      ['an extension param', (c) => void (c.capabilities.extensions![0]!.params!['max'] = 2)],
      ['a security scheme', (c) => void (c.securitySchemes!['apiKey']!.apiKeySecurityScheme!.name = 'X-Other')],
      ['an optional field removed', (c) => void delete c.provider],
    ];
    it.each(changes)('%s', async (_, change) => {
      const { privateKey, publicKey } = await keyPairFor('ES256');
      const signed = await signAgentCard(realisticCard(), { privateKey, alg: 'ES256', kid: 'k' });
      const tampered = structuredClone(signed);
      change(tampered);
      const result = await verifyAgentCard(tampered, { keys: only('k', publicKey) });
      expect(result).toEqual({ verified: false, reasons: ['signatures[0] (kid "k"): the signature does not match the card'] });
    });
  });

  it('supports key rotation: the first key is unknown, the second verifies', async () => {
    const old = await keyPairFor('RS256');
    const current = await keyPairFor('ES256');
    let card = await signAgentCard(realisticCard(), { privateKey: old.privateKey, alg: 'RS256', kid: 'old' });
    card = await signAgentCard(card, { privateKey: current.privateKey, alg: 'ES256', kid: 'new' });
    expect(card.signatures!.map((s) => decodeJson(s.protected))).toMatchObject([{ kid: 'old' }, { kid: 'new' }]);
    const result = await verifyAgentCard(card, { keys: only('new', current.publicKey) });
    expect(result).toEqual({ verified: true, kid: 'new', alg: 'ES256', index: 1, reasons: ['signatures[0] (kid "old"): no key'] });
  });

  it('keeps fields outside the v1.0 card out of the signature: adding v0.3 fields keeps it valid', async () => {
    const { privateKey, publicKey } = await keyPairFor('ES256');
    const signed = await signAgentCard(realisticCard(), { privateKey, alg: 'ES256', kid: 'k' });
    const served = { ...signed, url: 'https://agent.example.com/a2a/jsonrpc', protocolVersion: '0.3.0' } as AgentCard;
    expect((await verifyAgentCard(served, { keys: only('k', publicKey) })).verified).toBe(true);
  });

  it('reports bad and malformed signatures without throwing', async () => {
    const es = await keyPairFor('ES256');
    const rsa = await keyPairFor('RS256');
    const good = await signAgentCard(realisticCard(), { privateKey: es.privateKey, alg: 'ES256', kid: 'k' });
    const { protected: goodProtected, signature } = good.signatures![0]!;
    const entries = [
      'not an object',
      { protected: '%%%', signature },
      { protected: encodeJson(['alg']), signature },
      { protected: encodeJson({ alg: 'none', kid: 'k' }), signature: '' },
      { protected: encodeJson({ alg: 'HS256', kid: 'k' }), signature },
      { protected: encodeJson({ alg: 'ES256' }), signature },
      { protected: encodeJson({ alg: 'ES256', kid: 'k', crit: ['b64'], b64: false }), signature },
      { protected: goodProtected, signature, header: { kid: 'other' } },
      { protected: goodProtected, signature: 'not*base64' },
      { protected: encodeJson({ alg: 'ES256', kid: 'rsa' }), signature },
      { protected: encodeJson({ alg: 'ES256', kid: 'throws' }), signature },
      { protected: encodeJson({ alg: 'ES256', kid: 'bad-jwk' }), signature },
    ];
    const keys: AgentCardKeyLookup = ({ kid }) => {
      if (kid === 'throws') throw new Error('store down');
      if (kid === 'bad-jwk') return { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' };
      return kid === 'rsa' ? rsa.publicKey : es.publicKey;
    };
    const result = await verifyAgentCard({ ...good, signatures: entries } as unknown as AgentCard, { keys });
    expect(result.verified).toBe(false);
    expect(result.reasons).toEqual([
      'signatures[0]: not a { protected, signature } object',
      'signatures[1]: `protected` is not a base64url JSON object',
      'signatures[2]: `protected` is not a base64url JSON object',
      'signatures[3] (kid "k"): alg "none" is not accepted',
      'signatures[4] (kid "k"): unsupported alg "HS256"',
      'signatures[5]: the protected header has no kid',
      'signatures[6] (kid "k"): crit is not supported',
      'signatures[7] (kid "k"): header repeats protected parameters: kid',
      'signatures[8] (kid "k"): `signature` is not base64url',
      'signatures[9] (kid "rsa"): the key is RSASSA-PKCS1-v1_5/SHA-256, ES256 needs ECDSA/P-256',
      'signatures[10] (kid "throws"): key lookup failed: Error: store down',
      expect.stringMatching(/^signatures\[11\] \(kid "bad-jwk"\): cannot verify: /),
    ]);
  });

  it('reports a card without signatures', async () => {
    expect(await verifyAgentCard(realisticCard(), { keys: () => undefined })).toEqual({ verified: false, reasons: ['the card has no signatures'] });
  });

  it('rejects signing with a key that does not fit, an empty kid or a header that repeats a protected parameter', async () => {
    const { privateKey, publicKey } = await keyPairFor('ES256');
    const card = realisticCard();
    await expect(signAgentCard(card, { privateKey, alg: 'RS256', kid: 'k' })).rejects.toThrow(/needs RSASSA-PKCS1-v1_5/);
    await expect(signAgentCard(card, { privateKey: publicKey, alg: 'ES256', kid: 'k' })).rejects.toThrow(/usages/);
    await expect(signAgentCard(card, { privateKey, alg: 'ES256', kid: '' })).rejects.toThrow(/kid/);
    await expect(signAgentCard(card, { privateKey, alg: 'none' as AgentCardSigningAlg, kid: 'k' })).rejects.toThrow(/unsupported/);
    await expect(signAgentCard(card, { privateKey, alg: 'ES256', kid: 'k', header: { alg: 'none' } })).rejects.toThrow(/repeats/);
    expect(card.signatures).toBeUndefined();
  });
});
