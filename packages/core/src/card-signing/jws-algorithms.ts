/**
 * The JWS algorithms (RFC 7518, RFC 8037) an agent card signature may use,
 * mapped onto WebCrypto (`globalThis.crypto.subtle`), plus the base64url
 * codec of RFC 7515. Runs in browsers and Node >= 20 alike.
 */

/**
 * A JWS `alg` that {@link signAgentCard} and {@link verifyAgentCard} support.
 * `EdDSA` (RFC 8037) is used with Ed25519 keys only, and `Ed25519` is its
 * fully specified name (RFC 9864); both need WebCrypto `Ed25519` (Node >= 20,
 * current browsers).
 */
export type AgentCardSigningAlg =
  | 'ES256' | 'ES384' | 'ES512'
  | 'RS256' | 'RS384' | 'RS512'
  | 'PS256' | 'PS384' | 'PS512'
  | 'EdDSA' | 'Ed25519';

interface AlgSpec {
  /** What `importKey` needs to make a key of this algorithm. */
  readonly importParams: EcKeyImportParams | RsaHashedImportParams | Algorithm;
  /** What `sign` and `verify` need. */
  readonly signParams: EcdsaParams | RsaPssParams | Algorithm;
}

const ec = (bits: 256 | 384 | 512): AlgSpec => ({
  importParams: { name: 'ECDSA', namedCurve: bits === 512 ? 'P-521' : `P-${bits}` },
  signParams: { name: 'ECDSA', hash: `SHA-${bits}` },
});
const rsa = (bits: 256 | 384 | 512): AlgSpec => ({
  importParams: { name: 'RSASSA-PKCS1-v1_5', hash: `SHA-${bits}` },
  signParams: { name: 'RSASSA-PKCS1-v1_5' },
});
// RFC 7518 section 3.5: the PSS salt is as long as the hash output.
const pss = (bits: 256 | 384 | 512): AlgSpec => ({
  importParams: { name: 'RSA-PSS', hash: `SHA-${bits}` },
  signParams: { name: 'RSA-PSS', saltLength: bits / 8 } as RsaPssParams,
});

const ALGORITHMS: Readonly<Record<AgentCardSigningAlg, AlgSpec>> = {
  ES256: ec(256),
  ES384: ec(384),
  ES512: ec(512),
  RS256: rsa(256),
  RS384: rsa(384),
  RS512: rsa(512),
  PS256: pss(256),
  PS384: pss(384),
  PS512: pss(512),
  EdDSA: { importParams: { name: 'Ed25519' }, signParams: { name: 'Ed25519' } },
  Ed25519: { importParams: { name: 'Ed25519' }, signParams: { name: 'Ed25519' } },
};

/** Whether a JWK's `alg` names `alg` (WebCrypto exports Ed25519 keys as `Ed25519`, which fits `EdDSA`). */
function jwkFits(jwkAlg: string, alg: AgentCardSigningAlg): boolean {
  return jwkAlg === alg || (ALGORITHMS[alg].signParams.name === 'Ed25519' && (jwkAlg === 'EdDSA' || jwkAlg === 'Ed25519'));
}

/** The supported algorithms, in table order. */
export const AGENT_CARD_SIGNING_ALGS = Object.keys(ALGORITHMS) as readonly AgentCardSigningAlg[];

/** Whether `alg` is one of {@link AGENT_CARD_SIGNING_ALGS} (`none` and unknown names are not). */
export function isSigningAlg(alg: unknown): alg is AgentCardSigningAlg {
  return typeof alg === 'string' && Object.hasOwn(ALGORITHMS, alg);
}

/** The WebCrypto parameters `sign` and `verify` need for `alg`. */
export function signParamsOf(alg: AgentCardSigningAlg): AlgSpec['signParams'] {
  return ALGORITHMS[alg].signParams;
}

/**
 * Why `key` cannot be used with `alg` (its WebCrypto algorithm, curve or
 * hash differ, or it lacks `usage`), or undefined when it can. Guards
 * against algorithm confusion: a key is only ever used with its own `alg`.
 */
export function keyMismatch(key: CryptoKey, alg: AgentCardSigningAlg, usage: 'sign' | 'verify'): string | undefined {
  const want = ALGORITHMS[alg].importParams as Partial<EcKeyImportParams & RsaHashedImportParams> & Algorithm;
  const have = key.algorithm as Partial<EcKeyAlgorithm & RsaHashedKeyAlgorithm> & KeyAlgorithm;
  const describe = (a: typeof want | typeof have) =>
    [a.name, a.namedCurve, typeof a.hash === 'string' ? a.hash : a.hash?.name].filter(Boolean).join('/');
  const hash = typeof want.hash === 'string' ? want.hash : undefined;
  if (have.name !== want.name || have.namedCurve !== want.namedCurve || (hash !== undefined && have.hash?.name !== hash)) {
    return `the key is ${describe(have)}, ${alg} needs ${describe(want)}`;
  }
  if (!key.usages.includes(usage)) return `the key's usages do not include "${usage}"`;
  return undefined;
}

/** Imports a public JWK for verifying `alg`. Rejects (as WebCrypto does) when the JWK does not fit `alg`. */
export function importVerifyKey(jwk: JsonWebKey, alg: AgentCardSigningAlg): Promise<CryptoKey> {
  if (jwk.alg !== undefined && !jwkFits(jwk.alg, alg)) return Promise.reject(new Error(`the JWK is for ${jwk.alg}, not ${alg}`));
  if (jwk.use !== undefined && jwk.use !== 'sig') return Promise.reject(new Error(`the JWK's use is "${jwk.use}", not "sig"`));
  return globalThis.crypto.subtle.importKey('jwk', jwk, ALGORITHMS[alg].importParams, false, ['verify']);
}

/** Base64url without padding (RFC 7515 section 2) of `bytes`. */
export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of an unpadded base64url string, or undefined when `text` is not one. */
export function base64UrlDecode(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    return Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
