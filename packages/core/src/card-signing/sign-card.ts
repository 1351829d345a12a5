import type { AgentCard } from '../schema/index.js';
import { canonicalAgentCard } from './card-fields.js';
import { base64UrlEncode, keyMismatch, signParamsOf, isSigningAlg, type AgentCardSigningAlg } from './jws-algorithms.js';

/** How {@link signAgentCard} signs. */
export interface SignAgentCardOptions {
  /** The private key, a WebCrypto key whose algorithm fits `alg` and whose usages include `sign`. */
  readonly privateKey: CryptoKey;
  /** The JWS algorithm; `ES256` is a good default. */
  readonly alg: AgentCardSigningAlg;
  /** The key id verifiers look the public key up by (protected header `kid`). */
  readonly kid: string;
  /** The URL of a JWKS holding the public key (protected header `jku`), if you publish one. */
  readonly jku?: string;
  /** Unprotected header parameters, stored as the signature's `header` (not signed). */
  readonly header?: Readonly<Record<string, unknown>>;
}

const encoder = new TextEncoder();

/** Base64url of the UTF-8 of `text`. */
export function base64UrlText(text: string): string {
  return base64UrlEncode(encoder.encode(text));
}

/** The JWS signing input `BASE64URL(protected) '.' BASE64URL(payload)` as bytes. */
export function signingInput(protectedHeader: string, card: AgentCard): Uint8Array<ArrayBuffer> {
  return encoder.encode(`${protectedHeader}.${base64UrlText(canonicalAgentCard(card))}`);
}

/**
 * Signs an agent card as A2A v1.0 section 8.4.2 describes: a JWS over
 * {@link canonicalAgentCard} with the protected header
 * `{"alg", "typ": "JOSE", "kid", "jku"?}`, in JOSE signature form (ECDSA
 * signatures are raw `r || s`, as WebCrypto makes them).
 *
 * Resolves to a copy of `card` with one more entry at the end of
 * `signatures` (`{ protected, signature, header? }`); existing signatures are
 * kept, so signing again with a new key supports key rotation. Does not
 * modify `card`. Rejects with a `TypeError` when `alg` is unsupported, the
 * key does not fit `alg`, `kid` is empty or `header` repeats a protected
 * parameter; WebCrypto's own errors pass through.
 */
export async function signAgentCard(card: AgentCard, options: SignAgentCardOptions): Promise<AgentCard> {
  const { privateKey, alg, kid, jku, header } = options;
  if (!isSigningAlg(alg)) throw new TypeError(`unsupported JWS alg ${JSON.stringify(alg)}`);
  if (typeof kid !== 'string' || kid === '') throw new TypeError('signAgentCard needs a non-empty kid');
  const mismatch = keyMismatch(privateKey, alg, 'sign');
  if (mismatch !== undefined) throw new TypeError(`cannot sign with ${alg}: ${mismatch}`);
  const protectedFields = { alg, typ: 'JOSE', kid, ...(jku === undefined ? {} : { jku }) };
  const repeated = Object.keys(header ?? {}).filter((name) => Object.hasOwn(protectedFields, name));
  if (repeated.length > 0) throw new TypeError(`header repeats protected parameters: ${repeated.join(', ')}`);
  const protectedHeader = base64UrlText(JSON.stringify(protectedFields));
  const bytes = await globalThis.crypto.subtle.sign(signParamsOf(alg), privateKey, signingInput(protectedHeader, card));
  const signature = {
    protected: protectedHeader,
    signature: base64UrlEncode(new Uint8Array(bytes)),
    ...(header === undefined ? {} : { header: { ...header } }),
  };
  return { ...card, signatures: [...(card.signatures ?? []), signature] };
}
