import type { AgentCard } from '../schema/index.js';
import { base64UrlDecode, importVerifyKey, isSigningAlg, keyMismatch, signParamsOf, type AgentCardSigningAlg } from './jws-algorithms.js';
import { signingInput } from './sign-card.js';

/** The decoded protected header of one card signature, as the key lookup sees it. */
export interface AgentCardJwsHeader {
  /** The signature's algorithm, one of the supported ones (others fail before the lookup). */
  readonly alg: AgentCardSigningAlg;
  /** The key id (never empty). */
  readonly kid: string;
  /** The JWKS URL the signer named, if any. Fetch it only from origins you trust. */
  readonly jku?: string;
  /** The `typ` parameter as given (normally `JOSE`). */
  readonly typ?: string;
  /** Every other protected parameter, as given. */
  readonly [parameter: string]: unknown;
}

/**
 * Finds the public key for a signature: a WebCrypto `CryptoKey`, a public
 * JWK, or undefined when the key is unknown (expired and revoked keys must
 * be unknown, per spec). It may throw or reject; that fails this signature
 * only. `unprotected` is the signature's `header`, which is not signed.
 */
export type AgentCardKeyLookup = (
  header: AgentCardJwsHeader,
  unprotected: Readonly<Record<string, unknown>> | undefined,
) => CryptoKey | JsonWebKey | undefined | Promise<CryptoKey | JsonWebKey | undefined>;

/** How {@link verifyAgentCard} finds keys. */
export interface VerifyAgentCardOptions {
  /** The trusted key store (see {@link AgentCardKeyLookup}). */
  readonly keys: AgentCardKeyLookup;
}

/** What {@link verifyAgentCard} found. */
export interface AgentCardVerification {
  /** True when one signature verified with a key `keys` returned. */
  readonly verified: boolean;
  /** The `kid` of the signature that verified. */
  readonly kid?: string;
  /** The `alg` of the signature that verified. */
  readonly alg?: AgentCardSigningAlg;
  /** The index in `signatures` of the signature that verified. */
  readonly index?: number;
  /** Why each signature tried before (or, if none verified, instead of) the good one failed, e.g. `signatures[0] (kid "old"): no key`. */
  readonly reasons: string[];
}

type Failure = { readonly failed: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The decoded protected header of a signature entry, when it is a base64url JSON object. */
function decodeProtected(entry: unknown): Record<string, unknown> | undefined {
  if (!isObject(entry) || typeof entry['protected'] !== 'string') return undefined;
  const bytes = base64UrlDecode(entry['protected']);
  if (bytes === undefined) return undefined;
  try {
    const header: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return isObject(header) ? header : undefined;
  } catch {
    return undefined;
  }
}

/** The protected header of one signature entry, or why it is unusable. */
function readHeader(entry: unknown): { header: AgentCardJwsHeader; unprotected?: Record<string, unknown> } | Failure {
  if (!isObject(entry) || typeof entry['protected'] !== 'string' || typeof entry['signature'] !== 'string') {
    return { failed: 'not a { protected, signature } object' };
  }
  const unprotected = entry['header'];
  if (unprotected !== undefined && unprotected !== null && !isObject(unprotected)) return { failed: '`header` is not an object' };
  const header = decodeProtected(entry);
  if (header === undefined) return { failed: '`protected` is not a base64url JSON object' };
  const { alg, kid, jku, typ, crit } = header;
  if (alg === 'none') return { failed: 'alg "none" is not accepted' };
  if (!isSigningAlg(alg)) return { failed: `unsupported alg ${JSON.stringify(alg)}` };
  if (typeof kid !== 'string' || kid === '') return { failed: 'the protected header has no kid' };
  if ((jku !== undefined && typeof jku !== 'string') || (typ !== undefined && typeof typ !== 'string')) {
    return { failed: 'jku and typ must be strings' };
  }
  // RFC 7515 section 4.1.11: extensions we do not understand must fail; we understand none.
  if (crit !== undefined) return { failed: 'crit is not supported' };
  const repeated = Object.keys(unprotected ?? {}).filter((name) => Object.hasOwn(header, name));
  if (repeated.length > 0) return { failed: `header repeats protected parameters: ${repeated.join(', ')}` };
  return { header: header as AgentCardJwsHeader, ...(isObject(unprotected) ? { unprotected } : {}) };
}

/** Verifies one signature entry: its header when it verifies, else why it failed. Never throws. */
async function verifyOne(card: AgentCard, entry: unknown, keys: AgentCardKeyLookup): Promise<AgentCardJwsHeader | Failure> {
  const read = readHeader(entry);
  if ('failed' in read) return read;
  const { header, unprotected } = read;
  const { protected: protectedHeader, signature } = entry as { protected: string; signature: string };
  let key: CryptoKey | JsonWebKey | undefined;
  try {
    key = await keys(header, unprotected);
  } catch (error) {
    return { failed: `key lookup failed: ${String(error)}` };
  }
  if (key === undefined || key === null) return { failed: 'no key' };
  try {
    const cryptoKey = key instanceof CryptoKey ? key : await importVerifyKey(key, header.alg);
    const mismatch = keyMismatch(cryptoKey, header.alg, 'verify');
    if (mismatch !== undefined) return { failed: mismatch };
    const bytes = base64UrlDecode(signature);
    if (bytes === undefined) return { failed: '`signature` is not base64url' };
    const payload = signingInput(protectedHeader, card);
    const ok = await globalThis.crypto.subtle.verify(signParamsOf(header.alg), cryptoKey, bytes, payload);
    return ok ? header : { failed: 'the signature does not match the card' };
  } catch (error) {
    return { failed: `cannot verify: ${String(error)}` };
  }
}

/**
 * Verifies an agent card's signatures (A2A v1.0 section 8.4.3) against
 * {@link canonicalAgentCard} of the card as given: tries each entry of
 * `signatures` in order and stops at the first that verifies with the key
 * `options.keys` returns for its header.
 *
 * Never throws or rejects: a card without signatures, a malformed entry,
 * `alg: "none"`, an unsupported `alg`, an unknown key, a key of another
 * algorithm, a failing lookup or a changed card each make that signature
 * fail, with the reason in `reasons`. Only the fields the v1.0 `AgentCard`
 * message declares are covered (see {@link canonicalAgentCard}).
 */
export async function verifyAgentCard(card: AgentCard, options: VerifyAgentCardOptions): Promise<AgentCardVerification> {
  const signatures: unknown = isObject(card) ? card['signatures'] : undefined;
  if (!Array.isArray(signatures) || signatures.length === 0) return { verified: false, reasons: ['the card has no signatures'] };
  const reasons: string[] = [];
  for (const [index, entry] of signatures.entries()) {
    const result = await verifyOne(card, entry, options.keys);
    if (!('failed' in result)) return { verified: true, kid: result.kid, alg: result.alg, index, reasons };
    const kid = readKid(entry);
    reasons.push(`signatures[${index}]${kid === undefined ? '' : ` (kid ${JSON.stringify(kid)})`}: ${result.failed}`);
  }
  return { verified: false, reasons };
}

/** The `kid` of an entry for messages, when it has a readable one. */
function readKid(entry: unknown): string | undefined {
  const kid = decodeProtected(entry)?.['kid'];
  return typeof kid === 'string' ? kid : undefined;
}
